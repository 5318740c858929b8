"""`mmgauge compare` on two POPE runs: accuracy per split and overall by McNemar's exact test, each pair of
numbers the very numbers each run's result holds. Where VLMEvalKit's POPE.tsv counts a question in several
splits, the overall row takes each question once and says so. The report's leaderboard marks runs the test
cannot tell apart."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.benchmarks.pope.result import PopeResult


def _runs(cli: Any, tmp_path: Path, data: Path, answers: Path) -> tuple[Path, Path]:
    replayed, always = tmp_path / "replayed", tmp_path / "always-yes"
    for model, out in ((f"replay:{answers}", replayed), ("mock:Yes", always)):
        done = cli("run", "--bench", "pope", "--data", data, "--model", model, "--out", out, "--no-cache")
        assert done.code == 0, done.err
    return replayed, always


def _rows(cli: Any, first: Path, second: Path) -> dict[tuple[str, str], dict[str, Any]]:
    done = cli("compare", first, second, "--json")
    assert done.code == 0, done.err
    document = json.loads(done.out)
    return {(row["metric"], row["breakdown"]): row for pair in document["pairs"] for row in pair["rows"]
            if row["benchmark"] == "pope"}


def _result(run: Path) -> PopeResult:
    found = mmgauge.load_run(run).result("pope")
    assert isinstance(found, PopeResult) and found.overall is not None
    return found


def test_each_split_and_the_whole_compare_the_numbers_each_run_reports(
        cli: Any, lmms_lab_parquet: Path, replay_for_parquet: Path, tmp_path: Path) -> None:
    replayed, always = _runs(cli, tmp_path, lmms_lab_parquet, replay_for_parquet)
    rows = _rows(cli, replayed, always)
    a, b = _result(replayed), _result(always)
    assert set(rows) == {("accuracy", name) for name in ("adversarial", "popular", "random", "overall")}
    for name, scores_a, scores_b in [*((s, a.splits[s], b.splits[s]) for s in a.splits),
                                     ("overall", a.overall, b.overall)]:
        assert scores_a is not None and scores_b is not None
        row = rows["accuracy", name]
        assert (row["a"], row["b"]) == pytest.approx((100 * scores_a.accuracy.value,
                                                      100 * scores_b.accuracy.value))
        # Each split's 8 questions, 24 overall (every question in one split in this layout).
        assert (row["test"], row["n"], row["n_unit"]) == ("mcnemar-exact", 24 if name == "overall" else 8,
                                                          "questions")
        assert row["headline"] is (name == "overall")


def test_a_question_counted_in_several_splits_counts_once_in_the_overall_row(
        cli: Any, vlmevalkit_tsv: Path, vlmevalkit_predictions: Path, tmp_path: Path) -> None:
    replayed, always = _runs(cli, tmp_path, vlmevalkit_tsv, vlmevalkit_predictions)
    rows = _rows(cli, replayed, always)
    result = _result(replayed)
    assert result.overall is not None and result.overall.questions < result.overall.entries == 24
    # Entries that repeat a question are one answer: McNemar over the distinct questions, under a name that
    # is not the result's entry-weighted "overall".
    assert ("accuracy", "overall") not in rows
    once = rows["accuracy", "overall, each question once"]
    assert (once["test"], once["n"]) == ("mcnemar-exact", result.overall.questions)
    assert rows["accuracy", "random"]["a"] == pytest.approx(100 * result.splits["random"].accuracy.value)


def test_the_leaderboard_marks_pope_runs_it_cannot_tell_apart(
        cli: Any, lmms_lab_parquet: Path, replay_for_parquet: Path, tmp_path: Path) -> None:
    replayed, always = _runs(cli, tmp_path, lmms_lab_parquet, replay_for_parquet)
    out = tmp_path / "report.html"
    assert cli("report", replayed, always, "--out", out).code == 0
    marks = re.findall(r'<span class="tie" title="([^"]*)">≈</span>', out.read_text(encoding="utf-8"))
    assert len(marks) == 1 and "on 24 questions" in marks[0]  # the accuracy column; F1 has no paired test
