"""M3GIA's General Intelligence Ability (GIA) score from the published CFA models.

The release fits one bifactor model per language (general factor ``Cog`` on all 18 question types plus the
group factors Gc, Gv, Grw, Gq, Gf; lavaan, estimator MLR, std.lv, orthogonal factors: to refit one, pass
``mmgauge.cfa.fit.M3GIA_SETTINGS``, since ``fit_cfa``'s defaults are lavaan's ``cfa()``) and scores an MLLM
with ``lavPredict`` (regression method): with the published Lambda, Psi, Theta, nu and alpha,

    Sigma = Lambda Psi Lambda' + Theta,   W = Psi Lambda' Sigma^-1,   f = alpha + W (x - nu),

where x holds the 18 per-type counts of correct answers in the published column order. The GIA is
``f["Cog"]``. The published Theta is used as it is: every language but French carries negative residual
variances (Heywood cases), and the published scores were computed with them.

Caveat, stated plainly: the models were fitted on *z-scored* human data, yet the official procedure feeds
an MLLM's *raw counts* into them. The resulting GIA is therefore not on the human factor-score scale
(humans score about 0 +/- 1, models about 10-20), and the "human GIA" of the paper (En 16.01, ...) is on
the raw-count scale as well; ``gia_normalised = gia / human_gia * 100`` reproduces the paper's figures but
is no percentile.

The ``standardised`` scale puts the counts on the scale the model was fitted on, z = (x - mean) / sd with
the human data's own per-type statistics, and reports the Cog score together with the model's percentile
among the published human Cog scores. The release does NOT publish the raw human means and SDs, only the
z-scored data. From those z-scores the SDs can be recovered (raw counts are integers, so the smallest gap
between distinct z-values is 1 / sd), but the means only up to an unknown whole-number shift, so they
cannot be derived honestly. The standardised scale therefore needs the human statistics from the caller
(``HumanStats``); without them it raises a ``UserError`` rather than guessing.
"""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np
import numpy.typing as npt

from mmgauge.core.errors import UserError
from mmgauge.core.ordered_sum import ordered_matmul

if TYPE_CHECKING:
    import pandas as pd

    # Re-exported (`as`): callers import them from here.
    from mmgauge.benchmarks.m3gia.gia_models import GiaResult as GiaResult
    from mmgauge.benchmarks.m3gia.gia_models import GiaRow as GiaRow
    from mmgauge.benchmarks.m3gia.gia_models import HumanStats as HumanStats

#: The pydantic models, defined in `gia_models` and imported from there on first use.
_MODELS = ("GiaResult", "GiaRow", "HumanStats")


def __getattr__(name: str) -> Any:
    if name in _MODELS:
        from mmgauge.benchmarks.m3gia import gia_models

        return getattr(gia_models, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

Scale = Literal["official", "standardised"]
FloatArray = npt.NDArray[np.float64]
#: Rows per block of `PublishedModel.factor_scores` (16,384 rows of 18 counts: 2.4 MB).
SCORE_BLOCK_ROWS = 16_384

GENERAL_FACTOR = "Cog"

# Language -> (file prefix of the CFA files, answer-dict name, human GIA of the paper's Table 2).
_LANGUAGES: dict[str, tuple[str, str, float]] = {
    "en": ("En", "english", 16.01),
    "zh": ("Zh", "chinese", 16.69),
    "fr": ("Fr", "french", 19.52),
    "sp": ("Sp", "spanish", 16.22),
    "pt": ("Pt", "portuguese", 16.00),
    "ko": ("Ko", "korean", 18.05),
}
_ALIASES: dict[str, str] = {"es": "sp"}
for _code, (_prefix, _name, _) in _LANGUAGES.items():
    _ALIASES[_name] = _code

# The release's question_type strings (the misspelled "Number Seres" included) -> CFA column names.
QUESTION_TYPE_TO_COLUMN: dict[str, str] = {
    "Oral Vocabulary": "Oral_Vocab",
    "General Information": "General_Info",
    "Logo Problem": "Logo",
    "Visualization": "Visualization",
    "Picture Recognition": "Pic_Recog",
    "Real-world Spatial": "RW_Spatial",
    "Readings-text": "Readings_text",
    "Readings-VL": "Readings_VL",
    "Comic Problem": "Comic",
    "Algebra": "Algebra",
    "Geometry": "Geom",
    "Math Facts": "Math_Facts",
    "Applied Problem": "Applied_Problem",
    "Number Seres": "Number_Series",
    "Concept Formation": "Concept",
    "Raven's Matrices": "Raven",
    "Real-world Reasoning": "RW_Reason",
    "Syllogism Problem": "Syllogism",
}


def valid_language_names() -> list[str]:
    return sorted({*_LANGUAGES, *_ALIASES})


def normalise_language(language: str) -> str:
    """Map a code or name (any case) to the canonical code en, zh, fr, sp, pt or ko."""
    key = language.strip().lower()
    code = _ALIASES.get(key, key)
    if code not in _LANGUAGES:
        raise UserError(
            f"unknown M3GIA language {language!r}; valid: {', '.join(valid_language_names())}",
            field="language",
        )
    return code


def human_gia(language: str) -> float:
    return _LANGUAGES[normalise_language(language)][2]


def _data_file(*parts: str) -> str:
    node = resources.files("mmgauge").joinpath("data").joinpath("m3gia")
    for part in parts:
        node = node.joinpath(part)
    return node.read_text(encoding="utf-8")


@dataclass(frozen=True)
class _Table:
    """A published CSV: its row labels (first column, when it holds them), column labels and numbers."""

    rows: list[str]
    columns: list[str]
    values: FloatArray

    def select(self, rows: list[str] | None, columns: list[str]) -> FloatArray:
        """The values of `rows` (all when None) and `columns`, in that order (as pandas' `.loc` does)."""
        picked = self.values if rows is None else self.values[[self.rows.index(r) for r in rows]]
        return np.asarray(picked[:, [self.columns.index(c) for c in columns]], dtype=np.float64)


def _read_csv(name: str, index: bool) -> _Table:
    """A CFA file of the release. `float()` reads every number of the shipped files exactly as pandas does (a
    test checks it), so the model's matrices are the same to the last bit without importing pandas."""
    lines = list(csv.reader(_data_file("cfa", name).splitlines()))
    header = lines[0][1:] if index else lines[0]
    body = [line[1:] if index else line for line in lines[1:]]
    values = np.array([[float(cell) for cell in line] for line in body], dtype=np.float64)
    return _Table([line[0] for line in lines[1:]] if index else [], header, values.reshape(len(body), -1))


@dataclass(frozen=True)
class PublishedModel:
    """One language's published CFA parameters, indicators in the published column order."""

    language: str
    indicators: tuple[str, ...]
    factors: tuple[str, ...]
    lambda_: FloatArray
    theta: FloatArray
    psi: FloatArray
    nu: FloatArray
    alpha: FloatArray
    #: The published factor scores of the human sample, by factor.
    human_scores: dict[str, FloatArray]

    def weights(self) -> FloatArray:
        """Regression-method factor-score weights W = Psi Lambda' Sigma^-1 (factors x indicators)."""
        sigma = self.lambda_ @ self.psi @ self.lambda_.T + self.theta
        # Sigma is symmetric, so W' = Sigma^-1 Lambda Psi; solving avoids forming the inverse.
        return np.asarray(np.linalg.solve(sigma, self.lambda_ @ self.psi).T, dtype=np.float64)

    def factor_scores(self, x: FloatArray | RowBlocks) -> FloatArray:
        """Scores for rows of indicator values (n x indicators) -> (n x factors): (x - nu) W' + alpha, in
        blocks of rows that stay in the cache (a million rows at once cost four times as much). The product
        is summed in a fixed order (`ordered_matmul`), so a row's scores are the same to the last bit
        whatever the block sizes and the BLAS thread count."""
        weights = self.weights().T
        # A factor at a time (Fortran order), as `ordered_matmul` makes each block: copied without
        # transposing, and each factor's column of scores is contiguous for the writers.
        scores: FloatArray = np.empty((weights.shape[1], len(x)), dtype=np.float64).T
        for start, stop in pairwise([*range(0, len(x), SCORE_BLOCK_ROWS), len(x)]):
            rows = x[start:stop] if isinstance(x, np.ndarray) else x.rows(start, stop)
            block = ordered_matmul(rows - self.nu, weights)
            block += self.alpha
            scores[start:stop] = block
        return scores


class RowBlocks(Protocol):
    """Rows of counts (published column order) handed out a block at a time (`rows(start, stop)`, as
    floats), so that the whole matrix of floats of a large file need never exist (`counts.py`)."""

    def __len__(self) -> int: ...

    def rows(self, start: int, stop: int) -> FloatArray: ...


@cache
def load_published_model(language: str) -> PublishedModel:
    code = normalise_language(language)
    prefix = _LANGUAGES[code][0]
    lam = _read_csv(f"{prefix}_lambda.csv", index=True)
    indicators, factors = list(lam.rows), list(lam.columns)
    human = _read_csv(f"{prefix}_human_scores.csv", index=False)
    return PublishedModel(
        language=code,
        indicators=tuple(indicators),
        factors=tuple(factors),
        lambda_=lam.values,
        theta=_read_csv(f"{prefix}_theta.csv", index=True).select(indicators, indicators),
        psi=_read_csv(f"{prefix}_psi.csv", index=True).select(factors, factors),
        nu=_read_csv(f"{prefix}_nu.csv", index=True).select(indicators, ["intercept"])[:, 0],
        alpha=_read_csv(f"{prefix}_alpha.csv", index=True).select(factors, ["intercept"])[:, 0],
        human_scores={name: human.select(None, [name])[:, 0] for name in human.columns},
    )


@cache
def question_counts(language: str) -> dict[str, int]:
    """Number of questions per CFA column, derived from the answer file's question_type."""
    name = _LANGUAGES[normalise_language(language)][1]
    items = json.loads(_data_file(f"answer_dict_{name}.jsonl"))
    counts = Counter(QUESTION_TYPE_TO_COLUMN[str(item["question_type"])] for item in items)
    return dict(counts)


def counts_matrix(counts: pd.DataFrame, language: str, lines: Sequence[int] | None = None) -> FloatArray:
    """Validate a counts table and return it in the published column order (rows x 18).

    ``lines`` gives each row's line in the file it came from (errors name it); without it errors name the
    row's position (row 1 is the first row of counts)."""
    import pandas as pd

    model = load_published_model(language)
    columns = [str(c) for c in counts.columns]
    for column in model.indicators:
        if column not in columns:
            raise UserError(f"missing count column (expected: {', '.join(model.indicators)})", field=column)
    for column in columns:
        if column not in model.indicators:
            raise UserError(
                f"unexpected column; counts need exactly {', '.join(model.indicators)}", field=column
            )
    maxima = question_counts(language)
    ordered = counts[list(model.indicators)]
    values = np.empty(ordered.shape, dtype=np.float64)
    for j, column in enumerate(model.indicators):
        numeric = pd.to_numeric(ordered[column], errors="coerce")
        for i, value in enumerate(numeric):
            row = lines[i] if lines is not None else i + 1
            if pd.isna(value):
                cell = ordered[column].iloc[i]
                empty = pd.isna(cell) or not str(cell).strip()
                raise UserError("empty cell" if empty else f"not a number: {cell!r}", line=row, field=column)
            if value < 0 or value > maxima[column]:
                raise UserError(
                    f"count {value:g} outside 0..{maxima[column]} (questions of this type)",
                    line=row,
                    field=column,
                )
            values[i, j] = float(value)
    return values


def percentile_among(value: float, reference: FloatArray) -> float:
    """Share (0..100) of the reference strictly below value: the humans a model outscores.

    Strict, without a tie rule, because recomputed scores differ from published ones in the last bits.
    """
    return 100.0 * float(np.sum(reference < value)) / float(reference.size)


def _standardise(x: FloatArray, stats: HumanStats, indicators: tuple[str, ...]) -> FloatArray:
    for column in indicators:
        if column not in stats.mean or column not in stats.sd:
            raise UserError("human statistics lack this column", field=column)
        check_statistics(stats.mean[column], stats.sd[column], field=column)
    mean = np.array([stats.mean[c] for c in indicators], dtype=np.float64)
    sd = np.array([stats.sd[c] for c in indicators], dtype=np.float64)
    return (x - mean) / sd


@dataclass(frozen=True)
class GiaScores:
    """The scores of every row in column form; `result()` is the `GiaResult` of the same numbers (a large
    counts file is written from here without a model object per row: `gia_text`)."""

    language: str
    human_gia: float
    scale: Scale
    factors: tuple[str, ...]
    official: FloatArray  # rows x factors
    standardised: FloatArray | None
    human_percentile: FloatArray | None  # of the standardised GIA
    #: Each row's model name, None for a row the file does not name (None: the file names none).
    names: Sequence[str | None] | None = None

    @property
    def general(self) -> int:
        return self.factors.index(GENERAL_FACTOR)

    def result(self) -> GiaResult:
        from mmgauge.benchmarks.m3gia.gia_models import GiaResult, GiaRow

        g, human = self.general, self.human_gia
        rows: list[GiaRow] = []
        for i, values in enumerate(self.official.tolist()):
            row = GiaRow(model=None if self.names is None else self.names[i],
                         gia=values[g], gia_normalised=values[g] / human * 100.0,
                         factors=dict(zip(self.factors, values, strict=True)), scale=self.scale)
            if self.standardised is not None and self.human_percentile is not None:
                standardised = self.standardised[i].tolist()
                row.gia_standardised = standardised[g]
                row.factors_standardised = dict(zip(self.factors, standardised, strict=True))
                row.human_percentile = float(self.human_percentile[i])
            rows.append(row)
        return GiaResult(language=self.language, human_gia=human, scale=self.scale, rows=rows)


def compute_gia(
    counts: pd.DataFrame,
    language: str,
    scale: Scale = "official",
    human_stats: HumanStats | None = None,
    lines: Sequence[int] | None = None,
) -> GiaResult:
    """GIA for each row of a counts table (columns: the 18 published names, any order); ``lines`` as in
    ``counts_matrix``."""
    code = normalise_language(language)
    return gia_scores(counts_matrix(counts, code, lines), code, scale, human_stats).result()


def gia_scores(
    x: FloatArray | RowBlocks, language: str, scale: Scale = "official", human_stats: HumanStats | None = None
) -> GiaScores:
    """GIA for rows of checked counts in the published column order (`counts_matrix` checks a table)."""
    code = normalise_language(language)
    model = load_published_model(code)
    official = model.factor_scores(x)
    standardised: FloatArray | None = None
    percentile: FloatArray | None = None
    if scale == "standardised":
        if human_stats is None:
            raise UserError(
                "the standardised scale needs the human sample's raw per-type means and SDs; the M3GIA "
                "release publishes only z-scored human data, from which the means cannot be recovered",
                field="human_stats",
            )
        whole = x if isinstance(x, np.ndarray) else x.rows(0, len(x))
        standardised = model.factor_scores(_standardise(whole, human_stats, model.indicators))
        percentile = percentiles_among(standardised[:, model.factors.index(GENERAL_FACTOR)],
                                       model.human_scores[GENERAL_FACTOR])
    return GiaScores(code, _LANGUAGES[code][2], scale, model.factors, official, standardised, percentile)


def percentiles_among(values: FloatArray, reference: FloatArray) -> FloatArray:
    """`percentile_among` of each value (the same numbers: a count of the humans below, times 100, over
    their number)."""
    below = np.searchsorted(np.sort(reference), values, side="left").astype(np.float64)
    result: FloatArray = 100.0 * below / float(reference.size)
    return result


def check_statistics(
    mean: float, sd: float, *, field: str, file: str | None = None, line: int | None = None
) -> None:
    """A mean must be finite and an SD finite and positive: anything else would turn every score into NaN."""
    if not math.isfinite(mean):
        raise UserError(
            f"human mean must be a finite number, not {mean!r}", file=file, line=line, field=field
        )
    if not math.isfinite(sd) or sd <= 0:
        raise UserError(f"human SD must be a positive finite number, not {sd!r}", file=file, line=line,
                        field=field)
