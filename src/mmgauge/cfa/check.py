"""Is a data set fit for factor analysis? KMO sampling adequacy and Bartlett's test of sphericity
(numpy/scipy)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd
from pydantic import BaseModel

from mmgauge.cfa.data import observations
from mmgauge.core.errors import UserError

FloatArray = npt.NDArray[np.float64]


class Bartlett(BaseModel):
    chi2: float
    df: int
    pvalue: float


class Kmo(BaseModel):
    overall: float
    per_variable: dict[str, float]


class CheckResult(BaseModel):
    nobs: int
    variables: list[str]
    kmo: Kmo
    bartlett: Bartlett


def kmo(corr: FloatArray) -> tuple[float, FloatArray]:
    """Overall and per-variable KMO from a correlation matrix.

    The partial correlations come from the anti-image: a_ij = -q_ij / sqrt(q_ii q_jj) with Q = R^-1;
    KMO = sum r_ij^2 / (sum r_ij^2 + sum a_ij^2) over i != j (per variable: over j != i).
    """
    q = np.linalg.inv(corr)
    d = np.sqrt(np.diag(q))
    partial = -q / np.outer(d, d)
    off = ~np.eye(corr.shape[0], dtype=bool)
    r2 = np.where(off, corr**2, 0.0)
    a2 = np.where(off, partial**2, 0.0)
    overall = float(r2.sum() / (r2.sum() + a2.sum()))
    per = r2.sum(axis=1) / (r2.sum(axis=1) + a2.sum(axis=1))
    return overall, np.asarray(per, dtype=np.float64)


def bartlett(corr: FloatArray, n: int) -> Bartlett:
    """chi2 = -(n - 1 - (2p + 5) / 6) ln|R| on p(p - 1) / 2 degrees of freedom."""
    from scipy import stats

    p = corr.shape[0]
    sign, logdet = np.linalg.slogdet(corr)
    if sign <= 0:
        raise UserError("the correlation matrix is singular (a variable is constant or a linear combination)")
    chi2 = -(n - 1 - (2 * p + 5) / 6) * float(logdet)
    df = p * (p - 1) // 2
    return Bartlett(chi2=chi2, df=df, pvalue=float(stats.chi2.sf(chi2, df)))


def check_data(data: pd.DataFrame, source: str = "data") -> CheckResult:
    names = [str(c) for c in data.columns]
    if len(names) < 2:
        raise UserError("need at least two numeric columns", file=source)
    x = observations(data.set_axis(names, axis=1), names, source)
    corr: FloatArray = np.asarray(np.corrcoef(x, rowvar=False), dtype=np.float64)
    if float(np.linalg.cond(corr)) > 1e12:
        cause = f"{x.shape[0]} rows for {x.shape[1]} variables" if x.shape[0] <= x.shape[1] else (
            "a variable is a linear combination of others"
        )
        raise UserError(f"the correlation matrix is singular ({cause})", file=source)
    overall, per = kmo(corr)
    return CheckResult(
        nobs=x.shape[0],
        variables=names,
        kmo=Kmo(overall=overall, per_variable=dict(zip(names, (float(v) for v in per), strict=True))),
        bartlett=bartlett(corr, x.shape[0]),
    )
