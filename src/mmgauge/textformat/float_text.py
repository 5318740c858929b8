"""The JSON text of many floats at once, exactly as `json.dumps` writes each one (`float.__repr__` for a
finite number, `NaN`, `Infinity`, `-Infinity` otherwise), as an arrow string array.

`repr` costs about a microsecond a number, most of the time of writing a million rows of scores. orjson
formats a numpy column in C with the same shortest round-trip digits (the shortest text that reads back as
the same float, the nearest of those when several are as short), so for most numbers its text is `repr`'s.
Its notation differs outside a middle range (`1e-05` is `0.00001` there, `1e+16` is `1e16`, NaN is
`null`): numbers outside `SAFE_LOW <= |x| < SAFE_HIGH` (zero aside) are written by `json.dumps` one by one.
Whether this orjson writes the middle range as `repr` does is checked once, on probes around the range's
ends and ordinary numbers (`available`); if it does not (or orjson is missing), the caller writes the
numbers itself.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import compute, from_numpy, split, string_array, strings

if TYPE_CHECKING:
    import pyarrow as pa

#: Python's `repr` turns to exponent notation below 1e-4 and at 1e16; the upper end is kept lower, as
#: nothing scored comes near it and orjson's switch to exponents may move between versions.
SAFE_LOW: Final = 1e-4
SAFE_HIGH: Final = 1e15
#: Values per call: the text of one call must fit arrow's 32-bit string offsets (at most 25 bytes a value).
MAX_VALUES: Final = 10_000_000

_PROBES: Final = (
    0.0, -0.0, 1e-4, -1e-4, float(np.nextafter(1e-4, 1.0)), 0.00012345678901234567, 0.1, 0.2 + 0.1, 1 / 3,
    -2 / 3, 1.0, 12.0, -7.0, 100.0, 16.01, 70.19528028996504, -8.286847720192556, 123456.789, 2.0**52 + 1.0,
    5e14, 999999999999999.9, float(np.nextafter(SAFE_HIGH, 0.0)), 1234.5e-3, 9007199254740993.0 / 70,
)


def json_float_texts(values: npt.NDArray[np.float64], *, comma: bool = False) -> pa.Array:
    """`json.dumps(v)` of each value as a string array (no nulls); only where `available()`. With `comma`,
    each text ends in a comma, as in a list, which spares cutting orjson's text into pieces: the array's
    offsets then simply point into it."""
    if len(values) > MAX_VALUES:
        raise ValueError(f"at most {MAX_VALUES} values a call")
    if not available():
        raise RuntimeError("orjson is missing or writes floats unlike repr: check available() first")
    import orjson

    column = np.ascontiguousarray(values, dtype=np.float64)
    if len(column) == 0:
        return strings([])
    if comma:
        # One number more, so that the last one asked for is followed by a comma too (not the bracket).
        text = orjson.dumps(np.append(column, 0.0), option=orjson.OPT_SERIALIZE_NUMPY)  # "[v0,v1,...,0.0]"
        offsets = np.empty(len(column) + 1, dtype=np.int32)
        offsets[0] = 1
        offsets[1:] = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == ord(",")) + 1
        texts = string_array(offsets, text)
    else:
        text = orjson.dumps(column, option=orjson.OPT_SERIALIZE_NUMPY)  # "[v0,v1,...]"
        # One string, the text inside the brackets, split at the commas (no number's text holds one).
        bounds = np.array([1, len(text) - 1], dtype=np.int32)
        texts = split(string_array(bounds, text), ",").values
    magnitude = np.abs(column)
    outside = ~(((magnitude >= SAFE_LOW) & (magnitude < SAFE_HIGH)) | (column == 0.0))  # NaN included
    if outside.any():
        end = "," if comma else ""
        written = [json.dumps(value) + end for value in column[outside].tolist()]
        texts = compute("replace_with_mask", texts, from_numpy(outside), strings(written))
    return texts


@cache
def available() -> bool:
    """Whether orjson is installed and writes the probes exactly as `repr` does."""
    try:
        import orjson
    except ImportError:
        return False
    text = orjson.dumps(np.array(_PROBES, dtype=np.float64), option=orjson.OPT_SERIALIZE_NUMPY)
    return text.decode("ascii") == "[" + ",".join(repr(probe) for probe in _PROBES) + "]"
