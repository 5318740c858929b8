"""What `mmgauge score m3gia` prints, written from `GiaScores` in column form: the JSON is exactly
`json.dumps(scores.result().model_dump())` and the text exactly the lines the command prints from a
`GiaResult`, without a model object (or a dict) per row. Each row is one `%` formatting of its numbers:
`%r` of a float is the text `json.dumps` writes for it, and `%.4f` the text of `f"{x:.4f}"`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np

from mmgauge.scoring.m3gia_gia import GiaScores

#: Rows formatted per piece of output.
CHUNK_ROWS = 20_000


def _factors(names: tuple[str, ...]) -> str:
    return "{" + ", ".join(f"{json.dumps(name)}: %r" for name in names) + "}"


def json_chunks(scores: GiaScores) -> Iterator[str]:
    """The JSON text of `scores.result().model_dump()`, in pieces."""
    arrays = [scores.official] + [a for a in (scores.standardised, scores.human_percentile) if a is not None]
    if not all(np.isfinite(array).all() for array in arrays):  # NaN and infinity: json.dumps's own spelling
        yield json.dumps(scores.result().model_dump())
        return
    yield (f'{{"language": {json.dumps(scores.language)}, "human_gia": {scores.human_gia!r}, '
           f'"scale": {json.dumps(scores.scale)}, "rows": [')
    template = '{"gia": %r, "gia_normalised": %r, "factors": ' + _factors(scores.factors)
    template += f', "scale": {json.dumps(scores.scale)}, '
    if scores.standardised is None:
        template += '"gia_standardised": null, "factors_standardised": null, "human_percentile": null}'
    else:
        template += f'"gia_standardised": %r, "factors_standardised": {_factors(scores.factors)}, '
        template += '"human_percentile": %r}'
    for start in range(0, len(scores.official), CHUNK_ROWS):
        rows = [template % values for values in _row_values(scores, start, start + CHUNK_ROWS)]
        yield (", " if start else "") + ", ".join(rows)
    yield "]}"


def _row_values(scores: GiaScores, start: int, stop: int) -> list[tuple[float, ...]]:
    g = scores.general
    official = scores.official[start:stop]
    columns = [official[:, g], official[:, g] / scores.human_gia * 100.0, *official.T]
    if scores.standardised is not None and scores.human_percentile is not None:
        standardised = scores.standardised[start:stop]
        columns += [standardised[:, g], *standardised.T, scores.human_percentile[start:stop]]
    return list(zip(*(column.tolist() for column in columns), strict=True))


def text_lines(scores: GiaScores) -> Iterator[str]:
    """The lines the command prints: the language's human GIA, then each row's GIA."""
    yield f"M3GIA {scores.language}: human GIA {scores.human_gia}"
    g = scores.general
    gia = scores.official[:, g]
    columns = [np.arange(1, len(gia) + 1), gia, gia / scores.human_gia * 100.0]
    template = "row %d: GIA %.4f  normalised %.2f"
    if scores.standardised is not None and scores.human_percentile is not None:
        columns += [scores.standardised[:, g], scores.human_percentile]
        template += "  standardised %.4f  human percentile %.1f"
    for values in zip(*(column.tolist() for column in columns), strict=True):
        yield template % values
