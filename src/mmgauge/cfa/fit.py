"""Fit a CFA written in lavaan syntax with semopy, reporting what lavaan would report.

semopy (optional extra ``cfa``) does the model building, starting values and the main ML optimisation. Its
traps, and what this module does about them:

- Hang: semopy fixes the first *unlabelled* loading of each factor to 1, so freeing every loading (std.lv)
  needs every loading labelled; then its starting-value routine loops forever looking for a marker
  indicator. Here every free parameter gets a generated name and an explicit ``START(value)``, so that
  routine is never called, and user labels are translated to names of our own (a label written twice stays
  one shared parameter, which is lavaan's equality constraint).
- Identification: semopy's own defaults (marker loadings, free latent covariances) are never relied on;
  every variance and covariance is written out after lavaan's ``cfa()`` defaults (see ``syntax.build``)
  and the number of free parameters semopy ends up with is checked against ours.
- Precision: SLSQP stops around 1e-4 to 1e-6 on bifactor models; a few Fisher-scoring steps on the ML
  discrepancy polish the solution (to about 1e-9), so loadings match lavaan's to the printed digits.
- Fit measures: semopy's AIC/BIC come from its objective, not the full-data log-likelihood, and it has no
  SRMR; all measures are recomputed in ``measures`` with lavaan's conventions (N, not N - 1).
"""

from __future__ import annotations

import logging
import math
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel

from mmgauge.cfa import measures
from mmgauge.cfa.data import observations, require_positive_definite
from mmgauge.cfa.syntax import Model, Term, build, parse
from mmgauge.core.errors import UserError

Estimator = Literal["ML", "MLR"]
FloatArray = measures.FloatArray


class FitSettings(BaseModel):
    """How a model is estimated and identified (the keyword arguments of ``fit_cfa``)."""

    estimator: Estimator
    std_lv: bool
    orthogonal: bool


#: The settings of the published M3GIA models (the release's lavaan calls: estimator = "MLR", std.lv = TRUE,
#: orthogonal = TRUE); lavaan's ``cfa()`` defaults, which ``fit_cfa`` uses, are ML, marker, oblique.
M3GIA_SETTINGS = FitSettings(estimator="MLR", std_lv=True, orthogonal=True)


class Estimate(BaseModel):
    lhs: str
    op: str
    rhs: str
    estimate: float
    se: float | None
    free: bool
    label: str | None = None


class CfaResult(BaseModel):
    estimator: Estimator
    nobs: int
    converged: bool
    iterations_polish: int
    chisq: float
    df: int
    pvalue: float | None
    cfi: float | None
    tli: float | None
    rmsea: float | None
    srmr: float
    srmr_nomean: float
    aic: float
    bic: float
    loglik: float
    loglik_unrestricted: float
    npar: int
    baseline_chisq: float
    baseline_df: int
    loadings: dict[str, dict[str, float]]
    loadings_se: dict[str, dict[str, float | None]]
    parameters: list[Estimate]


def _semopy() -> Any:
    try:
        import semopy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise UserError("CFA fitting needs semopy: pip install 'mmgauge[cfa]'") from exc
    return semopy


def _name_parameters(model: Model) -> tuple[dict[int, str], list[str]]:
    """Semopy name per free term (index into model.terms) and the unique names in first-use order."""
    names: dict[int, str] = {}
    unique: list[str] = []
    for i, term in enumerate(model.terms):
        if term.fixed is not None:
            continue
        name = f"mmg_l_{term.label}" if term.label else f"mmg_p{i}"
        names[i] = name
        if name not in unique:
            unique.append(name)
    return names, unique


def _start_value(term: Term, model: Model, s: FloatArray) -> float:
    if term.start is not None:
        return term.start
    if term.op == "=~":
        if term.rhs in model.latent:
            return 0.5
        # Half the indicator's SD is a neutral start for a unit-variance factor; it also lands bifactor models
        # in the same (positive general factor) orientation lavaan reports.
        return 0.5 * math.sqrt(float(np.diag(s)[model.observed.index(term.rhs)]))
    if term.lhs == term.rhs:
        return 0.5 * float(np.diag(s)[model.observed.index(term.lhs)]) if term.lhs in model.observed else 0.5
    return 0.0


def _description(model: Model, names: dict[int, str], starts: dict[str, float]) -> str:
    lines: list[str] = []
    for i, t in enumerate(model.terms):
        mult = repr(float(t.fixed)) if t.fixed is not None else names[i]
        # Every loading carries a number or a name, so semopy's marker rule never fixes one behind our back.
        lines.append(f"{t.lhs} {t.op} {mult}*{t.rhs}")
    for name, value in starts.items():
        lines.append(f"START({value!r}) {name}")
    return "\n".join(lines)


def fit_cfa(
    data: pd.DataFrame,
    model_syntax: str,
    *,
    estimator: Estimator = "ML",
    std_lv: bool = False,
    orthogonal: bool = False,
    meanstructure: bool | None = None,
    polish_steps: int = 50,
    data_source: str = "data",
    model_source: str = "model syntax",
) -> CfaResult:
    """Fit a CFA; the defaults are lavaan's ``cfa()``: ML, the first loading of each factor fixed at 1 (marker
    indicator, std.lv = FALSE) and correlated factors. The M3GIA models pass their own settings
    (``M3GIA_SETTINGS``: MLR, std.lv = TRUE, orthogonal factors). ``data_source`` and ``model_source`` (file
    names) are what errors name."""
    if estimator not in ("ML", "MLR"):
        raise UserError(f"estimator must be ML or MLR, not {estimator!r}", field="estimator")
    terms = parse(model_syntax, source=model_source)
    data = data.set_axis([str(c) for c in data.columns], axis=1)
    model = build(
        terms, list(data.columns), std_lv=std_lv, orthogonal=orthogonal, source=model_source, data=data_source
    )
    x = observations(data, model.observed, data_source)
    frame = pd.DataFrame(x, columns=model.observed)
    n = x.shape[0]
    require_positive_definite(measures.sample_cov(x), n, data_source)
    free = len(_name_parameters(model)[1])
    moments = len(model.observed) * (len(model.observed) + 1) // 2
    if free > moments:
        raise UserError(
            f"the model is not identified: {free} free parameters for {moments} (co)variances",
            file=model_source,
        )
    try:
        return _fit(frame, model, estimator, meanstructure, polish_steps)
    except np.linalg.LinAlgError as problem:
        # A model the data cannot identify (e.g. a factor with too few indicators) ends in a singular matrix.
        raise UserError(
            f"the model cannot be estimated from these data ({problem}); check that it is identified",
            file=model_source,
        ) from None


def _fit(
    frame: pd.DataFrame, model: Model, estimator: Estimator, meanstructure: bool | None, polish_steps: int
) -> CfaResult:
    x = frame.to_numpy(dtype=np.float64)
    n = x.shape[0]
    s_frame = pd.DataFrame(measures.sample_cov(x), index=model.observed, columns=model.observed)
    names, unique = _name_parameters(model)
    starts: dict[str, float] = {}
    for i, name in names.items():
        starts.setdefault(name, _start_value(model.terms[i], model, s_frame.to_numpy()))
    semopy = _semopy()
    description = _description(model, names, starts)
    # semopy logs a root-logger warning for latents without a fixed loading, which is exactly our intent.
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        sem = semopy.Model(description)
        sem.fit(frame, options={"ftol": 1e-14, "maxiter": 10000})
    finally:
        logging.disable(previous)
    _check_latents(sem, model)
    active = [name for name, p in sem.parameters.items() if p.active]
    if sorted(active) != sorted(unique):
        raise RuntimeError(f"semopy built {len(active)} free parameters, expected {len(unique)}")
    order = [str(v) for v in sem.vars["observed"]]
    perm = [order.index(v) for v in model.observed]

    def sigma_of(theta: FloatArray) -> FloatArray:
        sem.update_matrices(theta)
        full = np.asarray(sem.calc_sigma()[0], dtype=np.float64)
        return np.asarray(full[np.ix_(perm, perm)], dtype=np.float64)

    s = s_frame.to_numpy()
    theta = np.asarray(sem.param_vals, dtype=np.float64).copy()
    converged, steps = _polish(s, sigma_of, theta, polish_steps)
    sigma = sigma_of(theta)
    sem.param_vals = theta
    delta = measures.jacobian(sigma_of, theta)
    ses = measures.standard_errors(x, sigma, delta, robust=estimator == "MLR")
    fit = measures.fit_measures(
        s, sigma, n, len(active), meanstructure if meanstructure is not None else estimator == "MLR"
    )
    position = {name: active.index(name) for name in unique}
    params: list[Estimate] = []
    loadings: dict[str, dict[str, float]] = {f: {} for f in model.latent}
    loadings_se: dict[str, dict[str, float | None]] = {f: {} for f in model.latent}
    for i, t in enumerate(model.terms):
        k = position[names[i]] if i in names else None
        value = float(theta[k]) if k is not None else float(t.fixed or 0.0)
        se = float(ses[k]) if k is not None else None
        params.append(
            Estimate(lhs=t.lhs, op=t.op, rhs=t.rhs, estimate=value, se=se, free=k is not None, label=t.label)
        )
        if t.op == "=~":
            loadings[t.lhs][t.rhs] = value
            loadings_se[t.lhs][t.rhs] = se
    return CfaResult(
        estimator=estimator,
        nobs=n,
        converged=converged,
        iterations_polish=steps,
        **fit.model_dump(),
        loadings=loadings,
        loadings_se=loadings_se,
        parameters=params,
    )


def _polish(s: FloatArray, sigma_of: Any, theta: FloatArray, max_steps: int) -> tuple[bool, int]:
    """Fisher scoring from semopy's solution; updates theta in place. Returns (converged, steps taken)."""
    for step in range(1, max_steps + 1):
        try:
            sigma = sigma_of(theta)
            delta = measures.jacobian(sigma_of, theta)
            move = measures.fisher_step(s, sigma, delta)
        except np.linalg.LinAlgError:
            return False, step
        before = measures.f_ml(s, sigma)
        scale = 1.0
        # Halve the step if it does not lower the discrepancy (far from the optimum scoring can overshoot).
        while scale > 1e-4:
            trial = theta + scale * move
            try:
                if measures.f_ml(s, sigma_of(trial)) <= before + 1e-12:
                    break
            except np.linalg.LinAlgError:
                pass
            scale /= 2
        theta += scale * move
        if float(np.max(np.abs(scale * move))) < 1e-10:
            return True, step
    return bool(float(np.max(np.abs(move))) < 1e-6), max_steps


def _check_latents(sem: Any, model: Model) -> None:
    found = {str(v) for v in sem.vars["latent"]}
    missing = [f for f in model.latent if f not in found]
    if missing:
        raise RuntimeError(f"semopy did not treat {missing} as latent")
