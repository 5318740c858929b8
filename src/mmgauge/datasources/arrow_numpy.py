"""Column work with pyarrow and numpy for the column-wise readers, at the cost of neither pandas nor
`pyarrow.compute`.

pyarrow imports pandas (about 0.4 s, longer than reading a 100,000-row file) the first time a Python object
or a numpy array crosses into it (`pa.array`, `pa.scalar`, `to_numpy`, a Python value as a compute argument),
to check whether it is a pandas object. Data therefore crosses through buffers (`to_numpy`, `from_numpy`,
`strings`), and constants go in as options (`contains(x, "yes")`), never as scalars.

Kernels are called by name through `pyarrow.compute.call_function`, and the helpers below (`take`,
`lengths`, `contains`, `as_text`, ...) are the calls the readers and the number formatters make, with numpy
arrays in and out. Only pyarrow's public modules are used: its private `pyarrow._compute` would spare the
import of `pyarrow.compute` (25 to 50 ms, which generates some 280 wrapper functions with their docstrings),
but could change or go in any pyarrow release.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from typing import TypeAlias

    import pyarrow as pa

    #: A column as pyarrow gives it: one array, or the chunks a file was read in.
    Column: TypeAlias = pa.Array | pa.ChunkedArray

_Read = TypeVar("_Read")


def reading_meanwhile(read: Callable[[], _Read], *modules: str) -> _Read:
    """`read()`, a pyarrow file reader, while `pyarrow.compute` (which the column helpers need next) and the
    caller's `modules` are imported on another thread: the reader works without the GIL, and those imports
    take about as long as reading a 100,000-row file."""
    import importlib
    import sys
    import threading

    wanted = [name for name in ("pyarrow.compute", *modules) if name not in sys.modules]
    if not wanted:
        return read()

    def load() -> None:
        for name in wanted:
            try:
                importlib.import_module(name)
            except Exception:  # left to the code importing it next, which raises it there
                return

    loader = threading.Thread(target=load, daemon=True)
    loader.start()
    try:
        return read()
    finally:
        loader.join()


def compute(function: str, *args: Any, options: Any = None) -> Any:
    """The compute kernel `function` (as `pyarrow.compute.<function>` calls it) on `args`."""
    from pyarrow.compute import call_function

    return call_function(function, list(args), options)


def as_text(column: Column | npt.NDArray[Any]) -> Column:
    """Each number (an arrow column or a 1-d numpy array) as its decimal text, as arrow writes integers."""
    import pyarrow as pa
    from pyarrow.compute import CastOptions

    arrow = from_numpy(column) if isinstance(column, np.ndarray) else column
    return compute("cast", arrow, options=CastOptions.safe(pa.string()))


def as_integers(column: Column) -> Column:
    """The column cast to 64-bit integers; arrow raises (ArrowInvalid) where a cell is not a whole number."""
    import pyarrow as pa
    from pyarrow.compute import CastOptions

    return compute("cast", column, options=CastOptions.safe(pa.int64()))


def replace_slice(column: Column, start: int, stop: int, text: str) -> Column:
    """Each cell with its code points start..stop replaced by `text`."""
    from pyarrow.compute import ReplaceSliceOptions

    return compute("utf8_replace_slice", column, options=ReplaceSliceOptions(start, stop, text))


def head_code_units(column: Column, stop: int) -> Column:
    """The first `stop` code units (bytes) of each cell."""
    from pyarrow.compute import SliceOptions

    return compute("utf8_slice_codeunits", column, options=SliceOptions(0, stop))


def split(column: Column, separator: str) -> Column:
    """Each cell split at `separator`: a list array (its `.values` are the pieces, in order)."""
    from pyarrow.compute import SplitPatternOptions

    return compute("split_pattern", column, options=SplitPatternOptions(separator))


def first_group(column: Column, pattern: str) -> Column:
    """The first group of the RE2 `pattern` (which names its groups) in each cell, null where it does not
    match."""
    from pyarrow.compute import ExtractRegexOptions, StructFieldOptions

    found = compute("extract_regex", column, options=ExtractRegexOptions(pattern))
    return compute("struct_field", found, options=StructFieldOptions([0]))


def string_array(offsets: npt.NDArray[np.int32], data: bytes) -> pa.Array:
    """The string array whose row r is data[offsets[r]:offsets[r + 1]] (UTF-8), sharing `data`."""
    import pyarrow as pa

    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.string(), len(offsets) - 1, buffers)


def take(column: Column, rows: npt.NDArray[np.int64]) -> Column:
    """The cells of `rows`, in that order.

    A column read from a file comes in one chunk per block the reader read (some 200 for a 200 MB file), and
    arrow's take of such a column costs several times a take from each chunk (measured: 60 ms against 6 ms
    for a quarter of the rows of a million-row text column), so the rows are taken chunk by chunk and the
    pieces joined into one array."""
    import pyarrow as pa

    if not isinstance(column, pa.ChunkedArray) or column.num_chunks < 2:
        return compute("take", column, from_numpy(rows))
    asked = np.asarray(rows, dtype=np.int64)
    order: npt.NDArray[np.int64] | None = None
    if len(asked) > 1 and bool((asked[1:] < asked[:-1]).any()):
        order = np.argsort(asked, kind="stable")
        asked = asked[order]
    if len(asked) and (asked[0] < 0 or asked[-1] >= len(column)):
        return compute("take", column, from_numpy(rows))  # out of range: arrow's own error
    starts = np.zeros(column.num_chunks + 1, dtype=np.int64)
    starts[1:] = np.cumsum([len(chunk) for chunk in column.chunks])
    cuts = np.searchsorted(asked, starts).tolist()
    pieces = [compute("take", chunk, from_numpy(asked[low:high] - start))
              for chunk, start, low, high in zip(column.chunks, starts[:-1].tolist(), cuts[:-1], cuts[1:],
                                                 strict=True)
              if high > low]
    taken: pa.Array = pa.concat_arrays(pieces) if pieces else column.chunk(0).slice(0, 0)
    if order is None:
        return taken
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return compute("take", taken, from_numpy(back))


def lengths(column: Column) -> npt.NDArray[np.int32]:
    """Characters (code points, as Python's `len`) per cell."""
    return to_numpy(compute("utf8_length", column))


def contains(column: Column, text: str, *, regex: bool = False) -> npt.NDArray[np.bool_]:
    """Whether each cell holds `text` (or matches the RE2 pattern, with `regex`)."""
    from pyarrow.compute import MatchSubstringOptions

    name = "match_substring_regex" if regex else "match_substring"
    return to_numpy(compute(name, column, options=MatchSubstringOptions(text)))


def in_set(column: Column, values: Sequence[str]) -> npt.NDArray[np.bool_]:
    """Whether each cell is one of `values`."""
    from pyarrow.compute import SetLookupOptions

    return to_numpy(compute("is_in", column, options=SetLookupOptions(strings(values))))


def one_chunk(column: Column) -> pa.Array:
    """The column as one contiguous array (a copy only when it has several chunks)."""
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
    return column


def to_numpy(column: Column) -> npt.NDArray[Any]:
    """A boolean or fixed-width numeric column without nulls, as a numpy array (a view where possible)."""
    import pyarrow as pa
    from pyarrow.compute import CastOptions

    array = one_chunk(column)
    if array.null_count:
        raise ValueError("a column with nulls has no plain numpy form")
    if pa.types.is_boolean(array.type):
        return to_numpy(compute("cast", array, options=CastOptions.safe(pa.uint8()))).view(np.bool_)
    dtype = np.dtype(array.type.to_pandas_dtype())
    data = array.buffers()[1]
    if data is None:  # an empty array may have no buffer
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def from_numpy(values: npt.NDArray[Any]) -> pa.Array:
    """A 1-d numeric or boolean numpy array as an arrow array (numbers share its memory)."""
    import pyarrow as pa

    contiguous = np.ascontiguousarray(values)
    if contiguous.dtype == np.bool_:  # arrow packs booleans 8 to a byte, lowest bit first
        bits = np.packbits(contiguous, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(contiguous), [None, pa.py_buffer(bits)])
    arrow_type = pa.from_numpy_dtype(contiguous.dtype)
    return pa.Array.from_buffers(arrow_type, len(contiguous), [None, pa.py_buffer(contiguous)])


def strings(values: Sequence[str]) -> pa.Array:
    """A small arrow string array (a value set for `is_in`, say), built from its buffers."""
    import pyarrow as pa

    encoded = [value.encode("utf-8") for value in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(value) for value in encoded])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def encode(column: Column) -> tuple[pa.Array, npt.NDArray[np.int64]]:
    """The distinct values of a column (no nulls), as one array, and for every row the number of its value."""
    import pyarrow as pa

    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    encoded = compute("dictionary_encode", column)
    if encoded.num_chunks == 0:
        return compute("unique", column.combine_chunks()), np.zeros(0, dtype=np.int64)
    dictionary = encoded.chunk(0).dictionary
    if not all(chunk.dictionary.equals(dictionary) for chunk in encoded.chunks):
        encoded = pa.chunked_array([compute("dictionary_encode", column.combine_chunks())])  # one dictionary
        dictionary = encoded.chunk(0).dictionary
    codes = np.concatenate([to_numpy(chunk.indices).astype(np.int64) for chunk in encoded.chunks])
    return dictionary, codes


def distinct(column: Column) -> tuple[list[Any], npt.NDArray[np.int64]]:
    """The distinct values of a column (no nulls) as Python values, and for every row the number of its
    value."""
    values, codes = encode(column)
    return values.to_pylist(), codes


def byte_lengths(column: Column) -> npt.NDArray[np.integer[Any]]:
    """Bytes per cell of a string column (no nulls), in arrow's integers (32-bit for `string`: a million-row
    column's lengths are not widened into 8 MB of fresh memory only to be compared)."""
    return to_numpy(compute("binary_length", column))


def fixed_width(column: Column, width: int) -> npt.NDArray[np.bytes_]:
    """Each cell's bytes as a numpy bytes value of `width` bytes, cut there or padded with NUL bytes (which
    numpy reads as padding: a cell ending in NUL bytes does not keep them)."""
    offsets, data = string_buffers(column)
    length = np.diff(offsets)
    if (length > width).any():  # keep the first `width` bytes of each cell
        position = np.arange(len(data)) - np.repeat(offsets[:-1], length)
        data = data[position < width]
        length = np.minimum(length, width)
    cells = np.zeros((len(length), width), dtype=np.uint8)
    cells[np.arange(width)[None, :] < length[:, None]] = data
    return cells.view(f"S{width}").reshape(-1)


def string_buffers(column: Column) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """A string column's UTF-8 bytes and the offsets of its rows in them (row r is data[offsets[r]:
    offsets[r + 1]]), for scanning text byte by byte with numpy."""
    import pyarrow as pa

    array = one_chunk(column)
    if array.null_count:
        raise ValueError("a column with nulls has no plain numpy form")
    _, offset_buffer, data_buffer = array.buffers()
    if offset_buffer is None:  # an empty array may have no buffers
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.uint8)
    width = np.dtype(np.int64 if pa.types.is_large_string(array.type) else np.int32)
    offsets = np.frombuffer(offset_buffer, dtype=width, count=len(array) + 1,
                            offset=array.offset * width.itemsize)
    data = np.zeros(0, dtype=np.uint8) if data_buffer is None else np.frombuffer(data_buffer, dtype=np.uint8)
    start, end = int(offsets[0]), int(offsets[-1])
    return np.subtract(offsets, start, dtype=np.int64), data[start:end]  # one new array, not two
