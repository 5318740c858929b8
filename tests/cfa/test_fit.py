"""CFA fitting: the published French M3GIA model, recovery from simulated data, lavaan conventions."""

from __future__ import annotations

import math
from importlib import resources
from io import StringIO

import numpy as np
import pandas as pd
import pytest

from mmgauge.cfa import measures
from mmgauge.cfa.fit import M3GIA_SETTINGS, fit_cfa
from mmgauge.cfa.syntax import parse
from mmgauge.core.errors import UserError

pytest.importorskip("semopy")


def cfa_text(name: str) -> str:
    node = resources.files("mmgauge").joinpath("data").joinpath("m3gia").joinpath("cfa").joinpath(name)
    return node.read_text(encoding="utf-8")


def simulate(loadings: np.ndarray, phi: np.ndarray, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    factors = rng.multivariate_normal(np.zeros(phi.shape[0]), phi, size=n)
    unique = 1.0 - np.sum((loadings @ phi) * loadings, axis=1)
    noise = rng.normal(size=(n, loadings.shape[0])) * np.sqrt(unique)
    return pd.DataFrame(factors @ loadings.T + noise, columns=[f"x{i + 1}" for i in range(loadings.shape[0])])


TWO_FACTOR = np.array([[0.8, 0], [0.7, 0], [0.6, 0], [0.5, 0], [0, 0.75], [0, 0.65], [0, 0.55], [0, 0.7]])
TWO_FACTOR_MODEL = "f1 =~ x1 + x2 + x3 + x4\nf2 =~ x5 + x6 + x7 + x8"


def test_french_model_reproduces_published_loadings() -> None:
    data = pd.read_csv(StringIO(cfa_text("Fr_human_z.csv")))
    published = pd.read_csv(StringIO(cfa_text("Fr_lambda.csv")), index_col=0)
    result = fit_cfa(data, cfa_text("Fr_model.lav"), **M3GIA_SETTINGS.model_dump())
    assert result.converged
    got = np.array([[result.loadings[f].get(i, 0.0) for f in published.columns] for i in published.index])
    # lavaan stopped ~3e-6 short of the optimum (its chisq at the published values is higher than ours).
    assert np.max(np.abs(got - published.to_numpy())) < 1e-5
    theta = pd.read_csv(StringIO(cfa_text("Fr_theta.csv")), index_col=0).loc[published.index, published.index]
    sigma = published.to_numpy() @ published.to_numpy().T + theta.to_numpy()
    s = measures.sample_cov(data[list(published.index)].to_numpy())
    assert result.nobs == 121 and result.df == 171 - 60
    assert result.chisq == pytest.approx(121 * measures.f_ml(s, sigma), abs=1e-5)
    assert result.chisq == pytest.approx(206.12785, abs=1e-4)
    assert result.loglik - result.loglik_unrestricted == pytest.approx(-result.chisq / 2, abs=1e-8)
    assert result.npar == 60 + 18  # MLR brings a (saturated) mean structure, as in lavaan
    assert result.aic == pytest.approx(-2 * result.loglik + 2 * 78)
    assert result.bic == pytest.approx(-2 * result.loglik + 78 * math.log(121))
    assert all(se is not None and 0.0 < se < 0.5 for se in result.loadings_se["Cog"].values())


def test_two_factor_model_recovers_simulated_loadings() -> None:
    phi = np.array([[1.0, 0.3], [0.3, 1.0]])
    data = simulate(TWO_FACTOR, phi, n=3000, seed=8)
    result = fit_cfa(data, TWO_FACTOR_MODEL, estimator="ML", std_lv=True, orthogonal=False)
    assert result.converged
    for j, name in enumerate(data.columns):
        factor = "f1" if j < 4 else "f2"
        assert result.loadings[factor][name] == pytest.approx(TWO_FACTOR[j].sum(), abs=0.05)
    covariance = next(p for p in result.parameters if p.op == "~~" and {p.lhs, p.rhs} == {"f1", "f2"})
    assert covariance.estimate == pytest.approx(0.3, abs=0.05)
    # The model is true, so chisq is of the order of its df and the fit indices near perfect.
    assert result.df == 19 and result.chisq < 45 and result.cfi is not None and result.cfi > 0.99
    assert result.rmsea is not None and result.rmsea < 0.03 and result.srmr < 0.02


def test_marker_identification_and_robust_errors_on_normal_data() -> None:
    data = simulate(TWO_FACTOR, np.eye(2), n=2000, seed=3)
    marker = fit_cfa(data, TWO_FACTOR_MODEL, estimator="MLR", std_lv=False, orthogonal=True)
    assert marker.loadings["f1"]["x1"] == 1.0 and marker.loadings_se["f1"]["x1"] is None
    assert marker.loadings["f1"]["x2"] == pytest.approx(0.7 / 0.8, abs=0.08)
    ml = fit_cfa(data, TWO_FACTOR_MODEL, estimator="ML", std_lv=True, orthogonal=True)
    mlr = fit_cfa(data, TWO_FACTOR_MODEL, **M3GIA_SETTINGS.model_dump())
    assert ml.loadings == mlr.loadings
    # Normal data: the sandwich agrees with the model-based errors up to sampling noise.
    for name in ("x1", "x2", "x3"):
        ratio = mlr.loadings_se["f1"][name] / ml.loadings_se["f1"][name]  # type: ignore[operator]
        assert 0.85 < ratio < 1.15
    assert ml.loadings_se["f1"]["x1"] == pytest.approx(0.024, abs=0.008)


def test_shared_labels_are_equality_constraints_and_do_not_hang() -> None:
    data = simulate(TWO_FACTOR, np.eye(2), n=1500, seed=11)
    model = "f1 =~ a*x1 + a*x2 + b*x3 + b*x4\nf2 =~ c*x5 + d*x6 + e*x7 + g*x8"
    result = fit_cfa(data, model, estimator="ML", std_lv=True, orthogonal=True)
    assert result.loadings["f1"]["x1"] == result.loadings["f1"]["x2"]
    assert result.loadings["f1"]["x1"] == pytest.approx(0.75, abs=0.05)
    assert result.df == 36 - 14


def test_second_order_structure() -> None:
    loadings = np.kron(np.eye(3), np.array([[0.8], [0.7], [0.6]]))
    gamma = np.array([0.8, 0.7, 0.6])
    phi = np.outer(gamma, gamma) + np.diag(1 - gamma**2)
    data = simulate(loadings, phi, n=2000, seed=5)
    model = "f1 =~ x1 + x2 + x3\nf2 =~ x4 + x5 + x6\nf3 =~ x7 + x8 + x9\ng =~ f1 + f2 + f3"
    result = fit_cfa(data, model, estimator="ML", std_lv=False, orthogonal=True)
    assert result.converged and result.df == 45 - 21
    # Marker scaling: g's loadings on f2, f3 relative to f1 recover 0.7/0.8 and 0.6/0.8 (first fixed at 1).
    assert result.loadings["g"]["f2"] == pytest.approx(0.7 / 0.8, abs=0.15)


def test_lavaan_syntax_errors_are_user_errors() -> None:
    with pytest.raises(UserError, match=":="):
        parse("f =~ a*x1 + x2\nab := a*2")
    with pytest.raises(UserError, match="no latent"):
        parse("x1 ~~ x2")
    data = simulate(TWO_FACTOR, np.eye(2), n=50, seed=1)
    with pytest.raises(UserError, match="nope"):
        fit_cfa(data, "f =~ x1 + x2 + nope")


def test_parser_reads_modifiers_and_continuations() -> None:
    terms = parse("# comment\nf =~ NA*x1 + 0.5*x2 +\n   lab*x3 + start(0.2)*x4 ; f ~~ 1*f")
    assert [(t.rhs, t.fixed, t.label, t.start, t.force_free) for t in terms] == [
        ("x1", None, None, None, True),
        ("x2", 0.5, None, None, False),
        ("x3", None, "lab", None, False),
        ("x4", None, None, 0.2, False),
        ("f", 1.0, None, None, False),
    ]
