"""Column helpers: a take from a column read in chunks gives the cells arrow's own take gives."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from mmgauge.datasources.arrow_numpy import take


def test_take_from_chunks_gives_arrows_cells_in_the_order_asked() -> None:
    rng = np.random.default_rng(0)
    cells = [f"cell {i} é" if i % 3 else "" for i in range(1000)]
    column = pa.chunked_array([cells[:1], cells[1:400], [], cells[400:999], cells[999:]], type=pa.string())
    for rows in (np.arange(1000), np.flatnonzero(rng.random(1000) < 0.3), rng.integers(0, 1000, 700),
                 np.array([999, 0, 0, 500, 1]), np.zeros(0, dtype=np.int64), np.array([999])):
        taken = take(column, rows.astype(np.int64))
        assert taken.type == pa.string()
        assert taken.to_pylist() == [cells[r] for r in rows.tolist()]
    with pytest.raises(IndexError):
        take(column, np.array([3, 1000], dtype=np.int64))
