"""`export_table`: one tidy row per headline metric and breakdown, the numbers of the stored result models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge import export_table, load_run
from mmgauge.benchmarks.m3gia.scoring import M3GIAResult
from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
from mmgauge.benchmarks.mme.scoring import MMEResult
from mmgauge.core.errors import UserError
from mmgauge.stats.proportion import Interval

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
COLUMNS = ["run", "model", "benchmark", "metric", "breakdown", "value", "ci_low", "ci_high", "n", "unit",
           "status", "headline"]


def rows_of(frame: pd.DataFrame, benchmark: str) -> dict[tuple[str, str], dict[str, Any]]:
    part = frame[frame["benchmark"] == benchmark]
    keyed = {(str(r["metric"]), str(r["breakdown"])): r for r in part.to_dict("records")}
    assert len(keyed) == len(part), "a (metric, breakdown) pair appears twice"
    return keyed


def assert_row(row: dict[str, Any], value: float, unit: str, ci: Interval | None = None, scale: float = 1.0,
               n: int | None = None) -> None:
    assert row["value"] == pytest.approx(value * scale, rel=1e-12, abs=1e-12)
    assert row["unit"] == unit
    if ci is None:
        assert pd.isna(row["ci_low"]) and pd.isna(row["ci_high"])
        assert (pd.isna(row["n"]) if n is None else row["n"] == n)
    else:
        assert row["ci_low"] == pytest.approx(ci.low * scale, rel=1e-12, abs=1e-12)
        assert row["ci_high"] == pytest.approx(ci.high * scale, rel=1e-12, abs=1e-12)
        assert row["n"] == ci.n


def copy_run(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def test_columns_types_and_every_builtin_benchmark(mock_runs: dict[str, Path]) -> None:
    frame = export_table(mock_runs["yes"])
    assert list(frame.columns) == COLUMNS
    assert frame["value"].dtype == "float64" and str(frame["n"].dtype) == "Int64"
    assert set(frame["benchmark"]) == {"mme", "mmbench", "m3gia", "pope", "mmstar"}
    assert set(frame["run"]) == {str(mock_runs["yes"])} and set(frame["model"]) == {"mock:Yes"}
    assert set(frame["status"]) == {"complete"}
    assert set(frame["unit"]) == {"percent", "points"}


def test_mme_rows_are_the_result_models_numbers(mock_runs: dict[str, Path]) -> None:
    run = mock_runs["yes"]
    result = load_run(run).result("mme")
    assert isinstance(result, MMEResult)
    rows = rows_of(export_table(run), "mme")
    assert_row(rows["perception", "overall"], result.perception.score, "points", result.perception.ci)
    assert_row(rows["cognition", "overall"], result.cognition.score, "points", result.cognition.ci)
    assert rows["perception", "overall"]["value"] == 500.0  # 10 subtasks x (acc 50 + acc+ 0)
    assert rows["perception", "overall"]["headline"] and rows["cognition", "overall"]["headline"]
    assert len(result.subtasks) == 14
    for name, score in result.subtasks.items():
        where = f"subtask={name}"
        assert_row(rows["acc", where], score.acc, "percent", score.acc_ci)
        assert_row(rows["acc_plus", where], score.acc_plus, "percent", score.acc_plus_ci)
        assert_row(rows["score", where], score.score, "points", score.score_ci)
        # Stored as a fraction, shown in percent like every other share.
        assert_row(rows["yes_ratio", where], score.yes_ratio, "percent", scale=100.0,
                   n=score.questions - score.other)
        assert rows["yes_ratio", where]["value"] == 100.0
        assert not rows["acc", where]["headline"]
    assert len(rows) == 2 + 4 * 14


@pytest.mark.parametrize("key", ["yes", "letter"])
def test_mmbench_rows_are_the_result_models_numbers_in_percent(mock_runs: dict[str, Path], key: str) -> None:
    run = mock_runs[key]
    result = load_run(run).result("mmbench")
    assert isinstance(result, MMBenchResult) and result.overall is not None and result.vanilla is not None
    rows = rows_of(export_table(run), "mmbench")
    assert_row(rows["circular_acc", "overall"], result.overall, "percent", result.overall_ci, 100.0)
    assert_row(rows["vanilla_acc", "overall"], result.vanilla, "percent", result.vanilla_ci, 100.0)
    assert rows["vanilla_acc", "overall"]["value"] == pytest.approx(result.vanilla_pct, abs=0.005)
    views = {"l2": (result.l2, result.l2_ci), "category": (result.category, result.category_ci),
             "split": (result.split, result.split_ci)}
    assert len(result.l2) == 6 and len(result.category) == 10 and result.split == {"dev": result.overall}
    for kind, (values, intervals) in views.items():
        for name, value in values.items():
            assert_row(rows["circular_acc", f"{kind}={name}"], value, "percent", intervals[name], 100.0)
    assert len(rows) == 2 + 6 + 10 + 1
    if key == "letter":  # always "A": the first copy is right where A is the answer, no whole group is
        assert rows["vanilla_acc", "overall"]["value"] > 0 and rows["circular_acc", "overall"]["value"] == 0


@pytest.mark.parametrize("key", ["yes", "letter"])
def test_m3gia_rows_per_language_and_mean(mock_runs: dict[str, Path], key: str) -> None:
    run = mock_runs[key]
    result = load_run(run).result("m3gia")
    assert isinstance(result, M3GIAResult) and result.mean is not None
    rows = rows_of(export_table(run), "m3gia")
    expected = 0
    for language, scores in result.per_language.items():
        lang = f"language={language}"
        assert_row(rows["acc", lang], scores.overall.mean, "percent", scores.overall_ci, 100.0)
        assert rows["acc", lang]["headline"]
        for kind, stats in (("type", scores.types), ("cluster", scores.clusters), ("factor", scores.factors)):
            for name, stat in stats.items():
                assert_row(rows["acc", f"{lang}; {kind}={name}"], stat.mean, "percent", scale=100.0)
        expected += 1 + len(scores.types) + len(scores.clusters) + len(scores.factors)
        # The built-in sample is not all 300 questions: no GIA, so no GIA rows.
        assert scores.gia is None and ("gia", lang) not in rows
    mean = result.mean
    assert len(mean.languages) == 3
    assert_row(rows["acc", "overall"], mean.overall.mean, "percent", scale=100.0)
    for kind, stats in (("type", mean.types), ("cluster", mean.clusters), ("factor", mean.factors)):
        for name, stat in stats.items():
            assert_row(rows["acc", f"{kind}={name}"], stat.mean, "percent", scale=100.0)
    expected += 1 + len(mean.types) + len(mean.clusters) + len(mean.factors)
    assert len(rows) == expected
    if key == "letter":
        assert rows["acc", "overall"]["value"] > 0


def test_m3gia_gia_and_round_sd_rows() -> None:
    from mmgauge.benchmarks.m3gia.scoring import Gia, LanguageScores, Stat
    from mmgauge.benchmarks.m3gia.tidy import m3gia_rows

    def stat(*values: float) -> Stat:
        import statistics

        return Stat(mean=statistics.mean(values), std=statistics.stdev(values) if len(values) > 1 else None,
                    rounds=list(values))

    scores = LanguageScores(
        questions=300, rounds=2, overall=stat(0.5, 0.6), types={}, clusters={},
        factors={"Gc": stat(0.2, 0.4)}, counts={}, complete=True,
        gia=Gia(gia=stat(10.0, 12.0), gia_normalised=stat(62.5, 75.0), human_gia=16.0,
                gia_standardised=stat(-0.5, -0.25), human_percentile=stat(30.0, 40.0)),
    )
    result = M3GIAResult(languages=["english"], rounds=2, per_language={"english": scores}, mean=None,
                         methods={}, failed=0, notes=[])
    rows = {(r.metric, r.breakdown): r for r in m3gia_rows(result.model_dump(mode="json"))}
    lang = "language=english"
    assert rows["acc", lang].value == pytest.approx(55.0)
    assert rows["acc_sd", lang].value == pytest.approx(100 * 0.0707106781, rel=1e-6)
    assert rows["acc", f"{lang}; factor=Gc"].value == pytest.approx(30.0)
    gia = rows["gia", lang]
    assert (gia.value, gia.unit, gia.headline) == (11.0, "gia", True)
    assert rows["gia_sd", lang].value == pytest.approx(1.41421356, rel=1e-6)
    assert (rows["gia_normalised", lang].value, rows["gia_normalised", lang].unit) == (68.75, "percent")
    assert (rows["human_gia", lang].value, rows["human_gia", lang].unit) == (16.0, "gia")
    assert (rows["gia_standardised", lang].value, rows["gia_standardised", lang].unit) == (-0.375, "z")
    assert (rows["human_percentile", lang].value, rows["human_percentile", lang].unit) == (35.0, "percent")


def test_partial_run_marks_its_rows_partial(tmp_path: Path) -> None:
    import mmgauge

    out = tmp_path / "limited"
    mmgauge.evaluate(model="mock:Yes", benchmarks="mme", out=out, limit=4, cache=False)
    frame = export_table(out)
    assert set(frame["benchmark"]) == {"mme"} and set(frame["status"]) == {"partial"}
    result = load_run(out).result("mme")
    assert isinstance(result, MMEResult) and result.perception.partial
    rows = rows_of(frame, "mme")
    # Only what was answered is there: two images of the first subtask.
    assert {b for _, b in rows} == {"overall", "subtask=existence"}
    assert_row(rows["perception", "overall"], result.perception.score, "points", result.perception.ci)


def test_several_runs_and_sources_in_one_table(mock_runs: dict[str, Path]) -> None:
    yes, letter = mock_runs["yes"], mock_runs["letter"]
    one = {key: export_table(path) for key, path in mock_runs.items()}
    frame = export_table([yes, str(letter / "results.json"), load_run(yes)])
    # Each source's rows in the order given; a results.json stands for its folder.
    expected = pd.concat([one["yes"], one["letter"], one["yes"]], ignore_index=True)
    pd.testing.assert_frame_equal(frame, expected)
    assert list(dict.fromkeys(frame["run"])) == [str(yes), str(letter)]
    assert list(dict.fromkeys(frame["model"])) == ["mock:Yes", "mock:A"]


def test_writes_csv_and_parquet_that_read_back_the_same(mock_runs: dict[str, Path], tmp_path: Path) -> None:
    runs = [mock_runs["yes"], mock_runs["letter"]]
    frame = export_table(runs, tmp_path / "out" / "table.csv")
    back = pd.read_csv(tmp_path / "out" / "table.csv",
                       dtype={"n": "Int64"})
    pd.testing.assert_frame_equal(back, frame)
    export_table(runs, tmp_path / "table.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "table.parquet"), frame)


def test_csv_escapes_formula_text_but_keeps_numbers(mock_runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy_run(mock_runs["yes"], tmp_path / "run")
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    results["model"] = "=HYPERLINK(\"http://x\")"
    results["benchmarks"]["plugin"] = {"result": {"@sum": -1.5, "+more": 2, "-x": {"=y": 3}}}
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    out = export_table(run, tmp_path / "t.csv")
    assert set(out["model"]) == {"=HYPERLINK(\"http://x\")"}  # the frame keeps the text as it is
    back = pd.read_csv(tmp_path / "t.csv")
    assert set(back["model"]) == {"'=HYPERLINK(\"http://x\")"}
    plugin = back[back["benchmark"] == "plugin"].set_index("metric")
    assert plugin.loc["'@sum", "value"] == -1.5 and plugin.loc["'+more", "value"] == 2.0
    assert plugin.loc["'=y", "breakdown"] == "'-x"
    text = (tmp_path / "t.csv").read_text(encoding="utf-8")
    assert ",-1.5," in text and ",'-1.5," not in text
    # Parquet is not read by spreadsheets: kept as it is.
    export_table(run, tmp_path / "t.parquet")
    assert set(pd.read_parquet(tmp_path / "t.parquet")["model"]) == {"=HYPERLINK(\"http://x\")"}


def test_general_level_report_beside_a_run_and_alone(mock_runs: dict[str, Path], tmp_path: Path) -> None:
    from mmgauge.api.scores import general_level

    fixture = FIXTURES / "general_level" / "Qwen2.5-7B-Instruct_result.xlsx"
    report = general_level(fixture)
    run = copy_run(mock_runs["yes"], tmp_path / "run")
    (run / "general-level.json").write_text(report.model_dump_json(), encoding="utf-8")
    frame = export_table(run)
    assert set(frame["benchmark"]) == {"mme", "mmbench", "m3gia", "pope", "mmstar", "general_level"}
    rows = rows_of(frame, "general_level")
    for k in (2, 3, 4, 5):
        assert_row(rows[f"level{k}", "overall"], getattr(report, f"level{k}"), "percent")
    assert report.nlp.score > 0
    assert_row(rows["nlp_score", "overall"], report.nlp.score, "percent")
    assert rows["supported", "modality=NLP"]["value"] == report.nlp.supported == 5
    for name, modality in report.modalities.items():
        where = f"modality={name}"
        for metric in ("level2", "level3", "level4", "level3_comprehension", "level3_generation"):
            assert_row(rows[metric, where], getattr(modality, metric), "percent")
        for metric in ("supported", "total", "wins"):
            assert_row(rows[metric, where], getattr(modality, metric), "count")
    tasks = [r for (metric, _), r in rows.items() if metric == "task_score"]
    assert len(tasks) == len(report.tasks) > 100
    supported = [t for t in report.tasks if t.score is not None]
    assert supported
    first = supported[0]
    row = rows["task_score", f"sheet={first.sheet}; task={first.task}; measure={first.metric}"]
    assert row["value"] == pytest.approx(first.score)

    alone = tmp_path / "level.json"
    alone.write_text(report.model_dump_json(), encoding="utf-8")
    frame = export_table(alone)
    assert set(frame["benchmark"]) == {"general_level"} and set(frame["model"]) == {report.model}
    assert len(frame) == len(rows)


def test_plugin_result_without_its_benchmark_installed_gets_generic_rows(
    mock_runs: dict[str, Path], tmp_path: Path
) -> None:
    run = copy_run(mock_runs["yes"], tmp_path / "run")
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    interval = {"low": 0.1, "high": 0.9, "n": 12, "method": "clopper-pearson"}
    results["benchmarks"]["uninstalled_plugin"] = {"status": "partial", "result": {
        "schema_version": 2, "accuracy": 0.5, "accuracy_ci": interval, "judged": True, "name": "x",
        "by_split": {"adversarial": 0.25, "random": 0.75}, "by_split_ci": {"random": interval},
        "detail": {"f1": 0.4, "rounds": [0.3, 0.5]}, "overall_ci95": [0.1, 0.9],
    }}
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    rows = rows_of(export_table(run), "uninstalled_plugin")
    assert set(rows) == {("accuracy", "overall"), ("adversarial", "by_split"), ("random", "by_split"),
                         ("f1", "detail"), ("rounds[0]", "detail"), ("rounds[1]", "detail")}
    assert (rows["accuracy", "overall"]["value"], rows["accuracy", "overall"]["ci_high"]) == (0.5, 0.9)
    assert rows["accuracy", "overall"]["n"] == 12 and rows["accuracy", "overall"]["headline"]
    assert rows["random", "by_split"]["ci_low"] == 0.1 and pd.isna(rows["adversarial", "by_split"]["ci_low"])
    assert rows["f1", "detail"]["value"] == 0.4 and not rows["f1", "detail"]["headline"]
    assert {r["status"] for r in rows.values()} == {"partial"} and {r["unit"] for r in rows.values()} == {""}


@pytest.mark.usefixtures("toy")
def test_installed_plugin_benchmark_generic_or_its_own_tidy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mmgauge
    from mmgauge.parts.tidy import TidyRow
    from mmgauge.testing.toy import ToyBenchmark, ToyResult

    out = tmp_path / "toy"
    mmgauge.evaluate(model="mock:yes", benchmarks="toy", out=out, cache=False)
    result = load_run(out).result("toy")
    assert isinstance(result, ToyResult) and 0 < result.correct < result.scored
    rows = rows_of(export_table(out), "toy")
    assert set(rows) == {(m, "overall") for m in ("scored", "correct", "failed", "accuracy")}
    assert rows["accuracy", "overall"]["value"] == result.accuracy

    def tidy(self: ToyBenchmark, result: ToyResult) -> list[TidyRow]:
        return [TidyRow(metric="acc", value=100 * result.accuracy, unit="percent", n=result.scored,
                        headline=True)]

    monkeypatch.setattr(ToyBenchmark, "tidy", tidy, raising=False)
    frame = export_table(out)
    assert frame[["metric", "breakdown", "value", "n", "unit"]].values.tolist() == [
        ["acc", "overall", 100 * result.accuracy, result.scored, "percent"]]


def test_user_errors(mock_runs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such run folder"):
        export_table(tmp_path / "missing")
    with pytest.raises(UserError, match="at least one"):
        export_table([])
    with pytest.raises(UserError, match=r"\.csv or \.parquet") as caught:
        export_table(mock_runs["yes"], tmp_path / "t.xlsx")
    assert caught.value.field == "--out"
    unscored = copy_run(mock_runs["yes"], tmp_path / "unscored")
    (unscored / "results.json").unlink()
    with pytest.raises(UserError, match="not scored") as caught:
        export_table(unscored)
    assert caught.value.file is not None and caught.value.file.endswith("results.json")
    broken = copy_run(mock_runs["yes"], tmp_path / "broken")
    results = json.loads((broken / "results.json").read_text(encoding="utf-8"))
    del results["benchmarks"]["mme"]["result"]["perception"]
    (broken / "results.json").write_text(json.dumps(results), encoding="utf-8")
    with pytest.raises(UserError, match="stored mme result does not read") as caught:
        export_table(broken)
    assert caught.value.field == "mme.perception"
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(UserError, match="not a run folder and not a General-Level report"):
        export_table(other)
