"""What `mmgauge score m3gia` prints, written from `GiaScores` in column form: the JSON is exactly
`json.dumps(scores.result().model_dump())` and the text exactly the lines the command prints from a
`GiaResult`, without a model object (or a dict) per row.

`json_chunks` (the reference) formats each row with one `%` of its numbers: `%r` of a float is the text
`json.dumps` writes for it. `json_bytes` and `text_bytes`, what the command writes, are built a column at a
time: each column's numbers as text (`float_text` as `json.dumps` writes them, `fixed_text` as `%.4f` and
its kin do), then each row joined from those texts and the template's fixed pieces by arrow, with no Python
object per row or number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import numpy as np

from mmgauge.benchmarks.m3gia.gia import FloatArray, GiaScores

#: Rows formatted per piece of output.
CHUNK_ROWS = 20_000
#: Rows per piece of `json_bytes` and `text_bytes` (some 340 bytes a row of the official scale's JSON: 5 MB a
#: piece, a few in flight).
BYTES_CHUNK_ROWS = 16_000
#: Threads making the pieces (the machines this runs on have two cores or more).
WORKERS = 2

#: A column of a row's numbers: (which array, which of its columns); the general factor's column appears
#: twice (as `gia` and among the factors) and is formatted once.
_Key = tuple[str, int]


def _factors(names: tuple[str, ...]) -> str:
    return "{" + ", ".join(f"{json.dumps(name)}: %r" for name in names) + "}"


def _template(scores: GiaScores) -> str:
    """One row's JSON with `%s` for the model's name (JSON text) and `%r` for each number, in the order of
    `_keys`."""
    template = '{"model": %s, "gia": %r, "gia_normalised": %r, "factors": ' + _factors(scores.factors)
    template += f', "scale": {json.dumps(scores.scale)}, '
    if scores.standardised is None:
        template += '"gia_standardised": null, "factors_standardised": null, "human_percentile": null}'
    else:
        template += f'"gia_standardised": %r, "factors_standardised": {_factors(scores.factors)}, '
        template += '"human_percentile": %r}'
    return template


def _keys(scores: GiaScores) -> list[_Key]:
    g, width = scores.general, len(scores.factors)
    keys = [("official", g), ("normalised", 0), *(("official", j) for j in range(width))]
    if scores.standardised is not None and scores.human_percentile is not None:
        keys += [("standardised", g), *(("standardised", j) for j in range(width)), ("percentile", 0)]
    return keys


def _column(scores: GiaScores, key: _Key, start: int, stop: int) -> FloatArray:
    name, j = key
    if name == "official":
        return scores.official[start:stop, j]
    if name == "normalised":
        return scores.official[start:stop, scores.general] / scores.human_gia * 100.0
    if name == "standardised" and scores.standardised is not None:
        return scores.standardised[start:stop, j]
    assert name == "percentile" and scores.human_percentile is not None
    return scores.human_percentile[start:stop]


def _header(scores: GiaScores) -> str:
    return (f'{{"language": {json.dumps(scores.language)}, "human_gia": {scores.human_gia!r}, '
            f'"scale": {json.dumps(scores.scale)}, "rows": [')


def _finite(scores: GiaScores) -> bool:
    arrays = [scores.official] + [a for a in (scores.standardised, scores.human_percentile) if a is not None]
    return all(np.isfinite(array).all() for array in arrays)


def json_chunks(scores: GiaScores) -> Iterator[str]:
    """The JSON text of `scores.result().model_dump()`, in pieces."""
    if not _finite(scores):  # NaN and infinity: json.dumps's own spelling
        yield json.dumps(scores.result().model_dump())
        return
    yield _header(scores)
    template = _template(scores)
    for start in range(0, len(scores.official), CHUNK_ROWS):
        values = _row_values(scores, start, start + CHUNK_ROWS)
        names = _json_names(scores, start, start + len(values))
        rows = [template % (name, *numbers) for name, numbers in zip(names, values, strict=True)]
        yield (", " if start else "") + ", ".join(rows)
    yield "]}"


def _json_names(scores: GiaScores, start: int, stop: int) -> list[str]:
    """The rows' names as `json.dumps` writes them (`encode_basestring_ascii` is what it calls for a str)."""
    if scores.names is None:
        return ["null"] * (stop - start)
    from json.encoder import encode_basestring_ascii

    return ["null" if name is None else encode_basestring_ascii(name) for name in scores.names[start:stop]]


def _row_values(scores: GiaScores, start: int, stop: int) -> list[tuple[float, ...]]:
    columns = [_column(scores, key, start, stop) for key in _keys(scores)]
    return list(zip(*(column.tolist() for column in columns), strict=True))


def json_bytes(scores: GiaScores) -> Iterator[memoryview]:
    """`json_chunks`'s text as UTF-8, in pieces, made a column at a time (the pieces are views of the arrow
    buffers the rows were joined in, which they keep alive), a few at once (`_made_ahead`)."""
    from mmgauge.datasources.arrow_numpy import compute, string_buffers, strings
    from mmgauge.textformat.float_text import available, json_float_texts

    keys = _keys(scores)
    if not (_finite(scores) and available()):  # non-finite numbers are rare: the reference spells them
        for piece in json_chunks(scores):
            yield memoryview(piece.encode("utf-8"))
        return
    yield memoryview(_header(scores).encode("utf-8"))
    # Every row starts with the ", " that separates it from the one before; the first row's is cut off.
    pieces = (", " + _template(scores)).split("%r")
    # The name: a fixed `null` without names, else a column of texts between the first piece's two halves.
    head, pieces[0] = pieces[0].split("%s") if scores.names is not None else ("", pieces[0] % "null")
    # A number followed by a comma wherever it appears takes the comma from its own text (cheaper).
    after = list(zip(keys, pieces[1:], strict=True))
    comma = {key for key in keys if all(piece.startswith(",") for k, piece in after if k == key)}
    pieces[1:] = [piece[1:] if key in comma else piece for key, piece in after]
    fixed = strings([*pieces, "", head])
    literal = [fixed[i] for i in range(len(pieces))]
    separator, named = fixed[len(pieces)], fixed[len(pieces) + 1]

    def rows_from(start: int) -> memoryview:
        stop = start + BYTES_CHUNK_ROWS
        texts = {key: json_float_texts(_column(scores, key, start, stop), comma=key in comma)
                 for key in dict.fromkeys(keys)}
        arguments = [literal[0]]
        if scores.names is not None:
            names = strings(_json_names(scores, start, min(stop, len(scores.official))))
            arguments = [named, names, literal[0]]
        for key, after in zip(keys, literal[1:], strict=True):
            arguments += [texts[key], after]
        _, data = string_buffers(compute("binary_join_element_wise", *arguments, separator))
        return (data[2:] if start == 0 else data).data

    yield from _made_ahead(rows_from, range(0, len(scores.official), BYTES_CHUNK_ROWS))
    yield memoryview(b"]}")


def _made_ahead(make: Callable[[int], memoryview], starts: range) -> Iterator[memoryview]:
    """`make(start)` of each start, in order, made by `WORKERS` threads a few pieces ahead of the one handed
    out (arrow's kernels and numpy let go of the GIL)."""
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        ahead: deque[Future[memoryview]] = deque()
        for start in starts:
            ahead.append(pool.submit(make, start))
            if len(ahead) > WORKERS:
                yield ahead.popleft().result()
        while ahead:
            yield ahead.popleft().result()


def text_bytes(scores: GiaScores) -> Iterator[memoryview]:
    """The lines the command prints, each ending in a newline, as UTF-8 in pieces: the language's human GIA,
    then `NAME: GIA %.4f  normalised %.2f` per row, NAME the model's name or else `row N` (the standardised
    scale adds `  standardised %.4f  human percentile %.1f`), made a column at a time (`fixed_text` writes
    each number as that `%` would)."""
    from mmgauge.datasources.arrow_numpy import as_text, compute, string_buffers, strings
    from mmgauge.textformat.fixed_text import fixed_parts

    yield memoryview((_text_header(scores) + "\n").encode("utf-8"))
    g, standardised = scores.general, scores.standardised is not None and scores.human_percentile is not None
    literal = strings(["row ", ": GIA ", "  normalised ", "  standardised ", "  human percentile ", "\n", ""])

    def rows_from(start: int) -> memoryview:
        stop = min(start + BYTES_CHUNK_ROWS, len(scores.official))
        gia = scores.official[start:stop, g]
        if scores.names is None:
            label = [literal[0], as_text(np.arange(start + 1, stop + 1, dtype=np.int64))]
        else:  # a row the file does not name keeps its number
            label = [strings([f"row {i}" if name is None else name
                              for i, name in enumerate(scores.names[start:stop], start + 1)])]
        parts = [*label, literal[1], *fixed_parts(gia, 4), literal[2],
                 *fixed_parts(gia / scores.human_gia * 100.0, 2)]
        if standardised:
            assert scores.standardised is not None and scores.human_percentile is not None
            parts += [literal[3], *fixed_parts(scores.standardised[start:stop, g], 4), literal[4],
                      *fixed_parts(scores.human_percentile[start:stop], 1)]
        _, data = string_buffers(compute("binary_join_element_wise", *parts, literal[5], literal[6]))
        return data.data

    yield from _made_ahead(rows_from, range(0, len(scores.official), BYTES_CHUNK_ROWS))


def _text_header(scores: GiaScores) -> str:
    return f"M3GIA {scores.language}: human GIA {scores.human_gia}"
