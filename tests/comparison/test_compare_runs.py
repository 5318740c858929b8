"""`compare` on runs made by the real pipeline: p-values as scipy/statsmodels give them for the same
discordant counts, a planted difference found and a null one not, Holm with three runs, one-line errors for
runs on different data, and answer files (the official tool's results folder) paired with runs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mmgauge.api.compare import compare
from mmgauge.comparison.core import Comparison
from mmgauge.core.errors import UserError
from oracles.mme_release import oracle_run, write_release

PLANTED = "count"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("compare")
    data = write_release(base / "release", 40)
    other = write_release(base / "other-release", 40, variant="b")
    return {
        "data": data,
        # A and B differ only on `count` (95% vs 50% right); elsewhere both are right 75% of the time, on
        # independent draws: a null difference.
        "a": oracle_run(base / "a", data, {PLANTED: 0.95}, seed=1),
        "b": oracle_run(base / "b", data, {PLANTED: 0.5}, seed=2),
        "c": oracle_run(base / "c", data, seed=3),
        "other": oracle_run(base / "other", other, seed=1),
    }


def outcomes(run: Path) -> dict[str, bool]:
    """sample id -> right, read straight from the run's records (independently of `compare`)."""
    out = {}
    for line in (run / "scored.jsonl").read_text().splitlines():
        record = json.loads(line)
        out[record["sample_id"]] = record["extraction"]["answer"] == record["metadata"]["truth"]
    return out


def test_mcnemar_p_values_are_the_exact_binomial_ones_of_scipy_and_statsmodels(
    runs: dict[str, Path],
) -> None:
    stats = pytest.importorskip("scipy.stats")
    contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
    result = compare([runs["a"], runs["b"]])
    a, b = outcomes(runs["a"]), outcomes(runs["b"])
    checked = 0
    for row in result.pairs[0].rows:
        if row.metric != "acc":
            continue
        # The discordant counts, counted here from the records.
        ids = [key for key in a if key.startswith(f"{row.breakdown}/")]
        counts = Counter((a[key], b[key]) for key in ids)
        assert (row.a_only, row.b_only) == (counts[(True, False)], counts[(False, True)])
        assert row.n == len(ids) == 80
        low, m = min(row.a_only or 0, row.b_only or 0), (row.a_only or 0) + (row.b_only or 0)
        expected = stats.binomtest(low, m, 0.5).pvalue if m else 1.0
        assert row.p_value == pytest.approx(expected, rel=1e-9)
        table = [[counts[(True, True)], counts[(True, False)]],
                 [counts[(False, True)], counts[(False, False)]]]
        assert row.p_value == pytest.approx(contingency.mcnemar(table, exact=True).pvalue, rel=1e-9)
        checked += 1
    assert checked == 5


def test_a_planted_difference_is_detected_and_a_null_one_is_not(runs: dict[str, Path]) -> None:
    rows = {(r.metric, r.breakdown): r for r in compare([runs["a"], runs["b"]]).pairs[0].rows}
    for metric in ("acc", "acc+", "score"):
        planted = rows[(metric, PLANTED)]
        assert planted.significant and planted.p_value < 0.001 and planted.low > 0, metric
        for subtask in ("existence", "color", "OCR", "code_reasoning"):
            null = rows[(metric, subtask)]
            assert not null.significant and null.low < 0 < null.high, (metric, subtask)
    assert rows[("score", "perception")].significant  # count is a perception subtask
    assert not rows[("score", "cognition")].significant
    # The detectable difference on 80 questions at the observed discordance is far above 1 point.
    assert rows[("acc", "existence")].mdd is not None and rows[("acc", "existence")].mdd > 10


def test_numbers_are_the_scorers_numbers_on_complete_runs(runs: dict[str, Path]) -> None:
    result = json.loads((runs["a"] / "results.json").read_text())["benchmarks"]["mme"]["result"]
    rows = {(r.metric, r.breakdown): r for r in compare([runs["a"], runs["c"]]).pairs[0].rows}
    assert rows[("score", "perception")].a == pytest.approx(result["perception"]["score"])
    assert rows[("score", "cognition")].a == pytest.approx(result["cognition"]["score"])
    for name, scores in result["subtasks"].items():
        assert rows[("acc", name)].a == pytest.approx(scores["acc"])
        assert rows[("acc+", name)].a == pytest.approx(scores["acc_plus"])
        assert rows[("score", name)].a == pytest.approx(scores["score"])


def test_holm_is_applied_over_the_pairs_of_three_runs(runs: dict[str, Path]) -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    result = compare([runs["a"], runs["b"], runs["c"]])
    assert [(p.a, p.b) for p in result.pairs] == [(0, 1), (0, 2), (1, 2)]
    assert result.holm is not None and "(3 of 3 pairs)" in result.holm
    families: dict[tuple[str, str], list[Any]] = {}
    for pair in result.pairs:
        for row in pair.rows:
            families.setdefault((row.metric, row.breakdown), []).append(row)
    assert len(families) == 2 + 3 * 5
    for rows in families.values():
        assert len(rows) == 3 and all(row.family_size == 3 for row in rows)
        reject, adjusted, _, _ = multitest.multipletests([row.p_value for row in rows], alpha=0.05,
                                                         method="holm")
        assert [row.p_adjusted for row in rows] == pytest.approx(list(adjusted), rel=1e-12)
        assert [row.significant for row in rows] == list(reject)
    # The planted subtask: B is worse than both A and C, even after the correction.
    count = families[("acc", PLANTED)]
    assert count[0].significant and count[2].significant and count[2].difference < 0


def test_two_runs_are_not_corrected(runs: dict[str, Path]) -> None:
    result = compare([runs["a"], runs["b"]])
    assert result.holm is None
    assert all(row.p_adjusted == row.p_value and row.family_size == 1 for row in result.pairs[0].rows)


def test_runs_on_different_data_give_one_line_naming_what_differs(runs: dict[str, Path], cli: Any) -> None:
    line = cli("compare", runs["a"], runs["other"]).error_line()
    assert "ran mme on different data" in line and "dataset fingerprint" in line
    assert str(runs["a"].name) in line and "other" in line


def test_an_answer_file_on_other_items_gives_one_line(
    runs: dict[str, Path], cli: Any, tmp_path: Path
) -> None:
    assert cli("export", "mme", runs["other"], "--official", tmp_path / "official").code == 0
    line = cli("compare", runs["a"], tmp_path / "official").error_line()
    assert "share no answered mme questions" in line


def test_different_answer_keys_are_named(runs: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "official"
    folder.mkdir()
    lines = ["0000.png\tQ\tNo\tno\n", "0000.png\tQ\tYes\tyes\n"]  # truths swapped against the release
    (folder / "count.txt").write_text("".join(lines))
    with pytest.raises(UserError, match=r"different answer keys for mme \(2 questions, e.g. count/0000"):
        compare([runs["a"], folder])


def test_the_official_results_folder_of_a_run_pairs_with_it(runs: dict[str, Path], cli: Any,
                                                            tmp_path: Path) -> None:
    assert cli("export", "mme", runs["b"], "--official", tmp_path / "b-official").code == 0
    same = compare([runs["b"], tmp_path / "b-official"])
    assert same.runs[1].kind == "MME results folder"
    for row in same.pairs[0].rows:
        assert row.difference == 0 and row.p_value == 1.0
        assert row.low < 0 < row.high  # identical runs: an interval, never a point
    from_runs = compare([runs["a"], runs["b"]])
    from_file = compare([runs["a"], tmp_path / "b-official"])
    for by_run, by_file in zip(from_runs.pairs[0].rows, from_file.pairs[0].rows, strict=True):
        assert (by_file.metric, by_file.breakdown, by_file.p_value, by_file.low) == (
            by_run.metric, by_run.breakdown, by_run.p_value, by_run.low)


def test_json_output_is_the_comparison(runs: dict[str, Path], cli: Any) -> None:
    done = cli("compare", runs["a"], runs["b"], "--json", "--resamples", "500")
    assert done.code == 0, done.err
    result = Comparison.model_validate_json(done.out)
    assert result.settings.resamples == 500 and len(result.pairs) == 1
    assert {row.test for row in result.pairs[0].rows} == {"mcnemar-exact", "paired-bootstrap"}


def test_the_terminal_table_marks_what_differs(runs: dict[str, Path], cli: Any) -> None:
    done = cli("compare", runs["a"], runs["b"], "--headline")
    assert done.code == 0, done.err
    assert "perception score" in done.out and "differs" in done.out and "≈" in done.out
    assert "count acc" not in done.out  # --headline: no subtasks


def test_fewer_than_two_runs_or_nothing_shared(runs: dict[str, Path], cli: Any, tmp_path: Path) -> None:
    assert "at least two runs" in cli("compare", runs["a"]).error_line()
    assert "no such run folder" in cli("compare", runs["a"], tmp_path / "missing").error_line()
    assert "'--level'" in cli("compare", runs["a"], runs["b"], "--level", "1.5").error_line()


def test_a_run_with_no_answered_question_is_named_not_taken_for_other_data(cli: Any, tmp_path: Path) -> None:
    from mmgauge.testing.server import Action, FakeOpenAIServer

    model = tmp_path / "model.yaml"
    with FakeOpenAIServer() as server:
        server.default = Action("500_same")  # every request fails: the run answers nothing
        model.write_text(f'spec: "openai:m@{server.base_url}"\nsettings:\n  backoff_base_s: 0.01\n')
        assert cli("run", "--model", model, "--bench", "mme", "--limit", "4", "--no-cache",
                   "--out", tmp_path / "failed").code == 1
    assert cli("run", "--model", "mock:yes", "--bench", "mme", "--limit", "4", "--no-cache",
               "--out", tmp_path / "answered").code == 0
    line = cli("compare", tmp_path / "answered", tmp_path / "failed").error_line()
    assert line.endswith("(failed) has no answered mme questions to compare"), line
    line = cli("compare", tmp_path / "failed", tmp_path / "failed").error_line()
    assert line.endswith("have no answered mme questions to compare") and "different data" not in line
