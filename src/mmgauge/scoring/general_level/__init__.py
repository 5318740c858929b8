"""General-Level scoring: metric normalisation, the five levels, and the official/corrected comparison.

Pure functions over :class:`ResultTable` (no file or network access); reading the release's spreadsheets
lives in :mod:`mmgauge.general_level.tables`.
"""

from mmgauge.scoring.general_level.levels import aggregate, disagreements, score_levels
from mmgauge.scoring.general_level.metrics import (
    REGISTRY,
    Metric,
    MetricKind,
    find_metric,
    lookup_metric,
    normalize,
)
from mmgauge.scoring.general_level.records import (
    MODALITIES,
    SHEETS,
    Disagreement,
    FieldDifference,
    LevelReport,
    ModalityLevels,
    Mode,
    NlpLevels,
    ResultTable,
    ScoreSource,
    TaskOutcome,
    TaskRow,
)

__all__ = [
    "MODALITIES",
    "REGISTRY",
    "SHEETS",
    "Disagreement",
    "FieldDifference",
    "LevelReport",
    "Metric",
    "MetricKind",
    "ModalityLevels",
    "Mode",
    "NlpLevels",
    "ResultTable",
    "ScoreSource",
    "TaskOutcome",
    "TaskRow",
    "aggregate",
    "disagreements",
    "find_metric",
    "lookup_metric",
    "normalize",
    "score_levels",
]
