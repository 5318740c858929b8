"""General-Level tables from this toolkit's own runs, through a mapping file.

A run folder's results (`RunResults`) hold each benchmark's result model under ``benchmarks.<name>.result``. A
mapping (YAML) names run measures by their path from ``benchmarks`` (``mme.result.subtasks.OCR.acc``,
``mmbench.result.category.image_style``) and the General-Level task each one stands in for (sheet, task name
and metric as the specialist table spells them), with a factor to reach 0..100 and a note. It may also list
files of literal scores (``modality, paradigm, task, metric, score`` rows, as read by
:func:`~mmgauge.general_level.tables.load_results`) for tasks no run measures.

A run measure is a proxy: the benchmark's own data and protocol, not General-Bench's test set, so the
mapping only pairs measures with tasks that ask the same kind of question under an accuracy-like metric.
Every task without a score is unsupported and scores 0, as the rules say; :class:`RunCoverage` reports how
many tasks the runs covered so a near-zero level is read for what it is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mmgauge.core.errors import UserError
from mmgauge.general_level.run_paths import is_run_folder as is_run_folder
from mmgauge.general_level.run_paths import scored_run_folder
from mmgauge.general_level.tables import load_results
from mmgauge.scoring.general_level.metrics import find_metric
from mmgauge.scoring.general_level.records import SHEETS, ResultTable, ScoreSource, TaskRow

MAPPING_VERSION = 1


def default_mapping_path() -> Path:
    """The mapping shipped with the package (MME, MMBench and M3GIA to Image-Comprehension tasks)."""
    return Path(str(resources.files("mmgauge").joinpath("data/general_level/run_mapping.yaml")))


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


class MappingEntry(BaseModel):
    """One run measure standing in for one General-Level task.

    ``measure`` is a dotted path from ``benchmarks`` of a run's results (a list of keys when a key holds a
    dot); the value read there, times ``scale``, must lie in 0..100.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    measure: str | list[str]
    scale: float = 1.0
    sheet: str
    task: str
    metric: str
    note: str = ""

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.measure.split(".")) if isinstance(self.measure, str) else tuple(self.measure)

    @property
    def label(self) -> str:
        text = ".".join(self.path)
        return text if self.scale == 1.0 else f"{text} x {self.scale:g}"


class NotMapped(BaseModel):
    """A measure considered and deliberately left unmapped, with the reason (documentation only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    measure: str | list[str]
    note: str


class RunMapping(BaseModel):
    """A mapping file: entries, documented non-matches, and files of literal scores."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = MAPPING_VERSION
    description: str = ""
    entries: list[MappingEntry] = Field(default_factory=list)
    not_mapped: list[NotMapped] = Field(default_factory=list)
    score_files: list[Path] = Field(default_factory=list)
    source: str = ""  # where the mapping was read from, for messages

    @field_validator("schema_version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value != MAPPING_VERSION:
            raise ValueError(f"unsupported schema_version {value}; this toolkit reads {MAPPING_VERSION}")
        return value


class CoveredTask(BaseModel):
    """A task that received a score, and where the score came from."""

    sheet: str
    row: int
    task: str
    metric: str
    score: float | None
    source: str
    note: str = ""


class SkippedEntry(BaseModel):
    """A mapping entry that gave no score, and why (benchmark not run, measure absent)."""

    measure: str
    sheet: str
    task: str
    reason: str


class RunCoverage(BaseModel):
    """How much of the specialist table the runs (and score files) cover."""

    runs: list[str]
    total: int
    covered: list[CoveredTask]
    skipped: list[SkippedEntry]
    #: The runs' caveats (built-in sample data, a baseline model), each naming its run: levels computed from
    #: them must say so wherever they are shown. `labels`: their short tags (`sample data`, `baseline`).
    caveats: list[str] = Field(default_factory=list)
    labels: list[str] = Field(default_factory=list)

    def per_sheet(self, specialist: Sequence[TaskRow]) -> dict[str, tuple[int, int]]:
        """Sheet -> (tasks with a score, tasks in the sheet), for the sheets with any score."""
        counts: dict[str, tuple[int, int]] = {}
        for sheet in dict.fromkeys(t.sheet for t in specialist):
            hits = sum(c.sheet == sheet and c.score is not None for c in self.covered)
            if hits:
                counts[sheet] = (hits, sum(t.sheet == sheet for t in specialist))
        return counts


def load_mapping(path: Path | None = None) -> RunMapping:
    """Read a mapping file (by default the shipped one); score files are resolved next to it."""
    import yaml  # only a run folder's scores need the mapping: a results file is scored without it

    path = path or default_mapping_path()
    if not path.is_file():
        raise UserError("no such mapping file", file=str(path))
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise UserError(f"cannot parse the mapping: {err}".splitlines()[0], file=str(path)) from None
    if not isinstance(data, dict):
        raise UserError("a mapping file must be a YAML mapping with an 'entries' list", file=str(path))
    try:
        mapping = RunMapping.model_validate({**data, "source": str(path)})
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"{first['msg']}", file=str(path), field=where) from None
    files = [f if f.is_absolute() else path.parent / f for f in mapping.score_files]
    return mapping.model_copy(update={"score_files": files})


def _entry_error(mapping: RunMapping, index: int, message: str) -> UserError:
    return UserError(message, file=mapping.source or None, field=f"entries[{index}]")


def check_mapping(mapping: RunMapping, specialist: Sequence[TaskRow]) -> dict[int, TaskRow]:
    """Each entry's task in the specialist table; an error for an unknown task, metric or a reused task."""
    found: dict[int, TaskRow] = {}
    claimed: dict[tuple[str, str], int] = {}
    for i, entry in enumerate(mapping.entries):
        if entry.sheet not in SHEETS:
            raise _entry_error(mapping, i, f"sheet {entry.sheet!r} is not one of {list(SHEETS)}")
        same = (t for t in specialist if t.sheet == entry.sheet and _key(t.task) == _key(entry.task))
        spec = next(same, None)
        if spec is None:
            raise _entry_error(mapping, i, f"task {entry.task!r} is not in sheet {entry.sheet!r}")
        metric = find_metric(entry.metric)
        if metric is None or metric != find_metric(spec.metric):
            raise _entry_error(
                mapping, i, f"metric {entry.metric!r} differs from the specialist table's {spec.metric!r}"
            )
        if metric.special:
            # Run measures are accuracies; an error or distance metric would need its own conversion.
            raise _entry_error(
                mapping, i, f"task {spec.task!r} uses {spec.metric}, not a 0..100 higher-is-better metric"
            )
        if not entry.path or not all(entry.path):
            raise _entry_error(mapping, i, f"measure {entry.measure!r} is not a path like mme.result.x")
        earlier = claimed.get((spec.sheet, spec.task))
        if earlier is not None:
            raise _entry_error(mapping, i, f"task {spec.task!r} is already mapped by entries[{earlier}]")
        claimed[(spec.sheet, spec.task)] = i
        found[i] = spec
    return found


class _Run:
    def __init__(self, path: Path) -> None:
        folder = scored_run_folder(path)
        if folder is None:
            raise UserError("not a run folder: it has no scored results", file=str(path))
        results = folder.read_results()
        assert results is not None
        self.name = str(path)
        self.file = folder.describe_file("results")
        self.model = results.model
        self.caveats = [f"{path}: {note}" for note in results.notes]
        self.labels = list(results.labels)
        self.benchmarks: dict[str, Any] = {
            name: entry.model_dump(mode="json") for name, entry in results.benchmarks.items()}

    def read(self, entry: MappingEntry) -> tuple[bool, Any]:
        """(found, value) at the entry's path; found is False when a key is absent."""
        node: Any = self.benchmarks
        for key in entry.path:
            if not isinstance(node, dict) or key not in node:
                return False, None
            node = node[key]
        return True, node

    def failed(self, benchmark: str) -> int:
        outcome = self.benchmarks.get(benchmark)
        value = outcome.get("failed") if isinstance(outcome, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _value(run: _Run, entry: MappingEntry, mapping: RunMapping, index: int, raw: Any) -> float | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise _entry_error(
            mapping, index, f"measure {entry.label!r} in {run.file} is {type(raw).__name__}, not a number"
        )
    value = float(raw) * entry.scale
    if math.isnan(value):
        return None
    if not 0.0 <= value <= 100.0:
        raise _entry_error(
            mapping,
            index,
            f"measure {entry.label!r} in {run.file} gives {value:g}, outside 0..100 (check 'scale')",
        )
    return value


def _runs_model(runs: Sequence[_Run]) -> str:
    models = sorted({r.model for r in runs if r.model})
    if len(models) > 1:
        names = ", ".join(f"{r.name}: {r.model}" for r in runs)
        raise UserError(f"the run folders are of different models ({names}); score one model at a time")
    return models[0] if models else "run"


def _claim(claims: dict[tuple[str, str], str], spec: TaskRow, source: str) -> None:
    other = claims.get((spec.sheet, spec.task))
    if other is not None:
        raise UserError(f"two scores for {spec.sheet} / {spec.task!r}: from {other} and from {source}")
    claims[(spec.sheet, spec.task)] = source


def _run_scores(
    runs: Sequence[_Run],
    mapping: RunMapping,
    targets: dict[int, TaskRow],
    claims: dict[tuple[str, str], str],
) -> tuple[dict[tuple[str, str], float | None], list[CoveredTask], list[SkippedEntry]]:
    scores: dict[tuple[str, str], float | None] = {}
    covered: list[CoveredTask] = []
    skipped: list[SkippedEntry] = []
    for i, entry in enumerate(mapping.entries):
        spec, benchmark = targets[i], entry.path[0]
        hits = [(run, raw) for run in runs for found, raw in [run.read(entry)] if found]
        if not hits:
            ran = any(benchmark in run.benchmarks for run in runs)
            reason = "measure not in the results" if ran else f"benchmark {benchmark!r} not in these runs"
            skipped.append(SkippedEntry(measure=entry.label, sheet=spec.sheet, task=spec.task, reason=reason))
            continue
        for run, raw in hits:
            source = f"{run.name}: {entry.label}"
            _claim(claims, spec, source)
            value = _value(run, entry, mapping, i, raw)
            notes = [entry.note] if entry.note else []
            if run.failed(benchmark):
                notes.append(f"{run.failed(benchmark)} failed requests in this run: the measure is partial")
            scores[(spec.sheet, spec.task)] = value
            covered.append(
                CoveredTask(
                    sheet=spec.sheet,
                    row=spec.row,
                    task=spec.task,
                    metric=spec.metric,
                    score=value,
                    source=source,
                    note="; ".join(notes),
                )
            )
    return scores, covered, skipped


def _file_scores(
    paths: Sequence[Path],
    specialist: list[TaskRow],
    model: str | None,
    claims: dict[tuple[str, str], str],
) -> tuple[dict[tuple[str, str], float | None], dict[tuple[str, str], ScoreSource], list[CoveredTask]]:
    scores: dict[tuple[str, str], float | None] = {}
    sources: dict[tuple[str, str], ScoreSource] = {}
    covered: list[CoveredTask] = []
    for path in paths:
        table = load_results(path, specialist, model)
        for row in table.tasks:
            if row.score is None:
                continue
            _claim(claims, row, str(path))
            scores[(row.sheet, row.task)] = row.score
            if row.score_source is not None:
                sources[(row.sheet, row.task)] = row.score_source
            covered.append(
                CoveredTask(
                    sheet=row.sheet,
                    row=row.row,
                    task=row.task,
                    metric=row.metric,
                    score=row.score,
                    source=str(path),
                )
            )
    return scores, sources, covered


def tables_from_runs(
    runs: Sequence[Path],
    specialist: list[TaskRow],
    mapping: RunMapping,
    score_files: Sequence[Path] = (),
    model: str | None = None,
) -> tuple[ResultTable, RunCoverage]:
    """One model's results table from run folders, the mapping's score files and ``score_files``.

    ``model`` selects rows of the score files (as ``--model`` does) and names the table; by default the
    name is the runs' model label. A task scored by two sources is an error naming both.
    """
    loaded = [_Run(path) for path in runs]
    targets = check_mapping(mapping, specialist)
    claims: dict[tuple[str, str], str] = {}
    run_scores, covered, skipped = _run_scores(loaded, mapping, targets, claims)
    file_scores, sources, file_covered = _file_scores(
        [*mapping.score_files, *score_files], specialist, model, claims
    )
    scores = {**run_scores, **file_scores}
    tasks = [
        t.model_copy(
            update={"score": scores.get((t.sheet, t.task)), "score_source": sources.get((t.sheet, t.task))}
        )
        for t in specialist
    ]
    label = _runs_model(loaded) if loaded else None
    name = model or label or "results"
    everything = [*covered, *file_covered]
    coverage = RunCoverage(
        runs=[r.name for r in loaded], total=len(specialist), covered=everything, skipped=skipped,
        caveats=[note for r in loaded for note in r.caveats],
        labels=list(dict.fromkeys(label for r in loaded for label in r.labels)),
    )
    return ResultTable(model=name, tasks=tasks), coverage
