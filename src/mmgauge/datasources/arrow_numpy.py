"""Moving columns between pyarrow and numpy through their buffers, so that scoring never imports pandas.

pyarrow imports pandas (about 0.4 s, longer than reading a 100,000-row file) the first time a Python object
or a numpy array crosses into it (`pa.array`, `pa.scalar`, `to_numpy`, a Python value as a compute argument),
to check whether it is a pandas object. The column-wise readers therefore pass data through buffers with
these helpers, and call compute functions with arrays and options only (a constant is written as a pattern
option: `match_substring_regex(x, "^[yY][eE][sS]$")`, not `equal(x, "yes")`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pyarrow as pa


def to_numpy(column: pa.Array | pa.ChunkedArray) -> npt.NDArray[Any]:
    """A boolean or fixed-width numeric column without nulls, as a numpy array (a view where possible)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if array.null_count:
        raise ValueError("a column with nulls has no plain numpy form")
    if pa.types.is_boolean(array.type):
        return to_numpy(pc.cast(array, pa.uint8())).view(np.bool_)
    dtype = np.dtype(array.type.to_pandas_dtype())
    data = array.buffers()[1]
    if data is None:  # an empty array may have no buffer
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def from_numpy(values: npt.NDArray[Any]) -> pa.Array:
    """A 1-d numeric numpy array as an arrow array, sharing its memory."""
    import pyarrow as pa

    contiguous = np.ascontiguousarray(values)
    arrow_type = pa.from_numpy_dtype(contiguous.dtype)
    return pa.Array.from_buffers(arrow_type, len(contiguous), [None, pa.py_buffer(contiguous)])
