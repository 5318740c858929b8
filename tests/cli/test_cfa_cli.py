"""``mmgauge cfa`` and ``mmgauge m3gia gia`` driven through the command tree."""

from __future__ import annotations

import json
from importlib import resources
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError

runner = CliRunner()


def write_two_factor(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(22)
    f = rng.normal(size=(800, 2))
    lam = np.array([[0.8, 0], [0.7, 0], [0.6, 0], [0, 0.8], [0, 0.7], [0, 0.6]])
    x = f @ lam.T + rng.normal(size=(800, 6)) * np.sqrt(1 - (lam**2).sum(axis=1))
    data = tmp_path / "data.csv"
    pd.DataFrame(x, columns=[f"y{i}" for i in range(1, 7)]).to_csv(data, index=False)
    model = tmp_path / "model.lav"
    model.write_text("f1 =~ y1 + y2 + y3\nf2 =~ y4 + y5 + y6\n", encoding="utf-8")
    return data, model


def test_cfa_fit_json(tmp_path: Path) -> None:
    pytest.importorskip("semopy")
    data, model = write_two_factor(tmp_path)
    m3gia_flags = ["--estimator", "MLR", "--std-lv", "--orthogonal"]
    args = ["fit", "--data", str(data), "--model", str(model), "--json", *m3gia_flags]
    result = runner.invoke(mounted_app(), ["cfa", *args])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    for key in ("chisq", "df", "pvalue", "cfi", "tli", "rmsea", "srmr", "aic", "bic", "loglik", "converged"):
        assert key in out
    assert out["df"] == 21 - 12 and out["converged"] is True
    assert out["loadings"]["f1"]["y1"] == pytest.approx(0.8, abs=0.07)
    assert out["loadings"]["f2"]["y6"] == pytest.approx(0.6, abs=0.07)


def test_cfa_check_json(tmp_path: Path) -> None:
    data, _ = write_two_factor(tmp_path)
    result = runner.invoke(mounted_app(), ["cfa", "check", str(data), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["bartlett"]["df"] == 15 and out["bartlett"]["pvalue"] < 1e-10
    assert set(out["kmo"]["per_variable"]) == {f"y{i}" for i in range(1, 7)}
    assert 0.5 < out["kmo"]["overall"] < 0.9


def test_m3gia_gia_json_matches_published_scores(tmp_path: Path) -> None:
    cfa = resources.files("mmgauge").joinpath("data").joinpath("m3gia").joinpath("cfa")
    counts = tmp_path / "en.csv"
    counts.write_text(cfa.joinpath("en.csv").read_text(encoding="utf-8"), encoding="utf-8")
    args = ["score", "m3gia", "--language", "en", "--counts", str(counts), "--json"]
    ignore = ["--ignore", "subid", "--ignore", "total_acc", "--ignore", "Unnamed: 20"]
    result = runner.invoke(mounted_app(), args + ignore)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["language"] == "en" and len(out["rows"]) == 15
    assert out["rows"][0]["gia"] == pytest.approx(14.8479993764033, abs=1e-6)
    assert out["rows"][0]["gia_normalised"] == pytest.approx(14.8479993764033 / 16.01 * 100, abs=1e-5)
    extra = runner.invoke(mounted_app(), args)
    assert isinstance(extra.exception, UserError) and "subid" in str(extra.exception)


def published_counts() -> pd.DataFrame:
    cfa = resources.files("mmgauge").joinpath("data").joinpath("m3gia").joinpath("cfa")
    table = pd.read_csv(StringIO(cfa.joinpath("en.csv").read_text(encoding="utf-8")))
    return table.drop(columns=["subid", "total_acc", "Unnamed: 20"]).head(3)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "counts.csv: cannot read CSV: No columns to parse from file"),
        ('General_Info,Oral_Vocab\n1,"2\n3,4\n', "counts.csv: cannot read CSV: Error tokenizing data"),
        ("General_Info,Oral_Vocab\n1,2\n3,4,5\n", "counts.csv: cannot read CSV: Error tokenizing data"),
    ],
)
def test_m3gia_gia_unreadable_counts_file(cli: Any, tmp_path: Path, text: str, needle: str) -> None:
    # These crashed with a pandas traceback and exit status 1.
    counts = tmp_path / "counts.csv"
    counts.write_text(text)
    assert needle in cli("score", "m3gia", "--language", "en", "--counts", counts).error_line()


def test_m3gia_gia_counts_without_rows_or_with_a_blank_cell(cli: Any, tmp_path: Path) -> None:
    counts = tmp_path / "counts.csv"
    table = published_counts()
    table.head(0).to_csv(counts, index=False)
    assert "counts.csv: no rows" in cli("score", "m3gia", "--language", "en", "--counts", counts).error_line()
    table.loc[1, "Raven"] = None
    table.to_csv(counts, index=False)
    line = cli("score", "m3gia", "--language", "en", "--counts", counts).error_line()
    assert "field 'Raven': empty cell" in line and "nan" not in line


def test_cfa_check_unreadable_file(cli: Any, tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_text("y1,y2\n1,2\n3,4,5\n")
    line = cli("cfa", "check", data).error_line()
    assert "data.csv: cannot read CSV: Error tokenizing data. C error: Expected 2 fields in line 3" in line


HOLZINGER_SWINEFORD_MODEL = "visual =~ x1 + x2 + x3\ntextual =~ x4 + x5 + x6\nspeed =~ x7 + x8 + x9\n"


def test_cfa_fit_default_flags_are_lavaan_cfa_on_holzinger_swineford(cli: Any, tmp_path: Path) -> None:
    # lavaan::cfa(HS.model, data = HolzingerSwineford1939) prints chisq 85.306 on 24 df, CFI .931, TLI .896,
    # RMSEA .092 (ML, marker indicators, correlated factors). The data: semopy's copy of lavaan's data set.
    holzinger = pytest.importorskip("semopy.examples.holzinger39")
    data, model = tmp_path / "hs1939.csv", tmp_path / "hs.lav"
    holzinger.get_data().to_csv(data, index=False)
    model.write_text(HOLZINGER_SWINEFORD_MODEL, encoding="utf-8")
    result = cli("cfa", "fit", "--data", data, "--model", model, "--json")
    assert result.code == 0, result.err
    out = json.loads(result.out)
    assert out["estimator"] == "ML" and out["nobs"] == 301 and out["df"] == 24
    assert round(out["chisq"], 3) == 85.306
    assert round(out["cfi"], 3) == 0.931 and round(out["tli"], 3) == 0.896 and round(out["rmsea"], 3) == 0.092
    assert out["loadings"]["visual"]["x1"] == 1.0  # the marker indicator
    correlations = [p for p in out["parameters"] if p["op"] == "~~" and p["lhs"] != p["rhs"]]
    assert len(correlations) == 3 and all(p["free"] for p in correlations)
    # M3GIA's settings stay one set of flags away, and the help says which are the defaults.
    m3gia = json.loads(
        cli("cfa", "fit", "--data", data, "--model", model, "--json", "--estimator", "MLR", "--std-lv",
            "--orthogonal").out
    )
    assert m3gia["df"] == 27 and round(m3gia["chisq"], 1) == 153.5 and m3gia["estimator"] == "MLR"
    help_text = " ".join(cli("cfa", "fit", "--help").out.split())
    for default in ("[default: ML]", "[default: marker]", "[default: oblique]"):
        assert default in help_text
    assert "--estimator MLR --std-lv --orthogonal" in help_text
