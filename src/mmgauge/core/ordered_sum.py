"""Matrix products summed in one fixed order, so that results do not depend on the machine's BLAS.

A BLAS matrix product may sum each element's terms in an order that depends on its thread count, its
kernel for the matrix's shape, and the size of the block it is handed: on a fresh two-core machine two of
32,770 M3GIA factor scores came out 6e-14 away from the single-threaded ones. Every number mmgauge promises
to reproduce to the last bit is summed here instead: term by term in index order, with numpy's element-wise
operations, which run on one thread and do not look at the other rows. On the narrow matrices scoring
multiplies (18 counts by 6 factors, items by resamples) this is about as fast as the BLAS call it replaces.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def ordered_matmul(left: npt.ArrayLike, right: npt.ArrayLike) -> FloatArray:
    """`left @ right` for a 2-D `left` (n x k) and a 1-D (k) or 2-D (k x m) `right`, each element summed over
    the inner index in the order 0, 1, ..., k-1. An element depends only on its own row of `left`, so a row's
    result is the same in a block of any size."""
    a = np.asarray(left, dtype=np.float64)
    b = np.asarray(right, dtype=np.float64)
    vector = b.ndim == 1
    b = b.reshape(len(b), -1)
    if a.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply shapes {a.shape} and {np.shape(right)}")
    # Columns of `left` as contiguous rows, and the result transposed, so each step is one pass over a
    # contiguous vector: out[j] += left[:, t] * right[t, j] for t in order.
    terms = np.ascontiguousarray(a.T)
    out = np.zeros((b.shape[1], a.shape[0]), dtype=np.float64)
    scratch = np.empty(a.shape[0], dtype=np.float64)
    for j in range(b.shape[1]):
        column = out[j]
        for t in range(b.shape[0]):
            np.multiply(terms[t], b[t, j], out=scratch)
            column += scratch
    result: FloatArray = out[0] if vector else out.T
    return result
