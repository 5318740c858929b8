"""`f"{x:.{digits}f}"` of many floats at once, exactly, as an arrow string array.

Python's fixed-point format rounds the exact binary value of x to `digits` decimals, half to even, and keeps
the sign of a negative number that rounds to zero (`-0.0000`). A million numbers one `format` at a time take
about as long as scoring them; here the work is a dozen numpy operations and arrow's integer-to-text cast:

- x * 10**digits is split exactly into hi + lo (Dekker's product: hi the rounded product, lo its rounding
  error, found with Veltkamp's split of x into two 26-bit halves; 10**digits has few enough bits);
- hi is rounded to the nearest integer, half to even (`rint`). With |hi| < 2**52 the rest hi - n is exact
  and a multiple of hi's spacing, so the exact product n + (hi - n) + lo rounds to another integer only when
  hi sits exactly on a half and lo pushes it over, which lo's sign settles;
- the integer's digits become text (arrow's cast), the last `digits` of them after the point.

Numbers outside that range (every float there is a whole number, or too large for the split), NaN and
infinities are formatted by Python one by one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import as_text, compute, from_numpy, replace_slice, strings

if TYPE_CHECKING:
    import pyarrow as pa

#: Veltkamp's constant for doubles: 2**27 + 1 splits a 53-bit significand into two halves of 26 bits.
_SPLIT: Final = 134217729.0
#: Below this the product's rounding error is exact and its rest hi - n a multiple of hi's spacing.
_LIMIT: Final = 2.0**52
#: Decimals the split stays exact for (10**7 < 2**26).
MAX_DIGITS: Final = 7


def rounded_scaled(values: npt.NDArray[np.float64], digits: int) -> npt.NDArray[np.float64]:
    """round(x * 10**digits) of the exact product, half to even, for |x * 10**digits| < 2**52."""
    scale = float(10**digits)
    hi = values * scale
    big = values * _SPLIT
    upper = big - (big - values)
    lower = values - upper
    lo = (upper * scale - hi) + lower * scale  # exact: hi + lo == x * scale
    whole = np.rint(hi)
    rest = hi - whole
    whole += (rest == 0.5) & (lo > 0.0)
    whole -= (rest == -0.5) & (lo < 0.0)
    return whole


def fixed_texts(values: npt.NDArray[np.float64], digits: int) -> pa.Array:
    """`f"{v:.{digits}f}"` of each value, as an arrow string array (1 <= digits <= `MAX_DIGITS`)."""
    sign, units, fraction = fixed_parts(values, digits)
    return compute("binary_join_element_wise", sign, units, fraction, strings([""])[0])


def fixed_parts(values: npt.NDArray[np.float64], digits: int) -> tuple[pa.Array, pa.Array, pa.Array]:
    """`fixed_texts` in three string arrays to be joined: the sign ("-" or ""), the whole units, and the
    point with the decimals (a caller joining lines of several numbers joins these once, in the line)."""
    if not 1 <= digits <= MAX_DIGITS:
        raise ValueError(f"digits must be 1..{MAX_DIGITS}")
    column = np.ascontiguousarray(values, dtype=np.float64)
    if len(column) == 0:
        return strings([]), strings([]), strings([])
    scale = 10**digits
    inside = np.abs(column) * float(scale) < _LIMIT  # False for NaN and infinities
    whole = np.abs(rounded_scaled(np.where(inside, column, 0.0), digits)).astype(np.int64)
    units, decimals = np.divmod(whole, scale)
    # The decimals with their leading zeros: 10**digits + decimals as text, its leading "1" made the point.
    fraction = replace_slice(as_text(decimals + scale), 0, 1, ".")
    fixed = strings(["-", ""])
    sign = compute("if_else", from_numpy(np.signbit(column)), fixed[0], fixed[1])
    units_text = as_text(units)
    if not inside.all():  # Python's own text in the units, nothing around it
        outside = from_numpy(~inside)
        written = strings([f"{value:.{digits}f}" for value in column[~inside].tolist()])
        nothing = strings([""] * len(written))
        sign, units_text, fraction = (compute("replace_with_mask", part, outside, replacement)
                                      for part, replacement in ((sign, nothing), (units_text, written),
                                                                (fraction, nothing)))
    return sign, units_text, fraction
