"""The observations a CFA fit or a factorability check may use: numeric, finite, varying, enough rows.

Both ``fit`` and ``check`` go through ``observations`` so that bad data is one ``UserError`` naming the file,
the CSV line (the header is line 1, so row i of the table is line i + 2) and the column, never a numpy
``LinAlgError`` from deep inside a decomposition.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from mmgauge.core.errors import UserError

FloatArray = npt.NDArray[np.float64]


def _line(frame: pd.DataFrame, mask: pd.Series) -> int:
    """The CSV line of the first row where ``mask`` holds (header on line 1)."""
    return int(np.flatnonzero(mask.to_numpy())[0]) + 2


def observations(data: pd.DataFrame, columns: list[str], source: str) -> FloatArray:
    """``data[columns]`` as floats, refusing missing, non-numeric, infinite and constant values."""
    frame = data[columns].apply(pd.to_numeric, errors="coerce")
    for column in columns:
        missing = frame[column].isna()
        if missing.any():
            raise UserError(
                "missing or non-numeric value (only complete data are supported)",
                file=source, line=_line(frame, missing), field=column,
            )
        infinite = ~np.isfinite(frame[column].to_numpy(dtype=np.float64))
        if infinite.any():
            raise UserError(
                "infinite value", file=source, line=_line(frame, pd.Series(infinite)), field=column
            )
    if len(frame) < 2:
        raise UserError(f"need at least two rows of observations, found {len(frame)}", file=source)
    for column in columns:
        values = frame[column].to_numpy(dtype=np.float64)
        if float(np.ptp(values)) == 0.0:
            raise UserError(f"constant column (every value is {values[0]:g})", file=source, field=column)
    return np.asarray(frame.to_numpy(dtype=np.float64), dtype=np.float64)


def require_positive_definite(covariance: FloatArray, nobs: int, source: str) -> None:
    """Refuse a singular sample covariance (the ML discrepancy needs log|S|), saying why it may be so."""
    eigenvalues = np.linalg.eigvalsh(covariance)
    if float(eigenvalues.min()) <= 1e-12 * max(float(eigenvalues.max()), 1e-300):
        p = covariance.shape[0]
        cause = (
            f"{nobs} rows for {p} variables" if nobs <= p else "a variable is a linear combination of others"
        )
        raise UserError(f"the sample covariance matrix is singular ({cause})", file=source)
