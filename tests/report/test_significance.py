"""The report's comparison section and leaderboard marks, and the judge audit of each run: the same numbers
as `mmgauge compare` / `judge_audit.json`, every value escaped."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from mmgauge.api.audit import audit_judge, judge_audit
from mmgauge.api.compare import compare
from mmgauge.report import build_report, write_report
from mmgauge.testing.server import FakeOpenAIServer
from oracles.mme_release import oracle_run, write_release


@pytest.fixture(scope="module")
def ranked(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three MME runs: two strong ones (95% right) on independent draws, and a weak one (50%)."""
    base = tmp_path_factory.mktemp("ranked")
    data = write_release(base / "release", 40)
    return [oracle_run(base / "strong", data, base=0.95, seed=1),
            oracle_run(base / "weak", data, base=0.5, seed=2),
            oracle_run(base / "twin", data, base=0.95, seed=3)]


def _leaderboard_cells(html: str, column: str) -> list[str]:
    section = html[html.index('id="leaderboard"'):html.index('id="significance"')]
    heads = re.findall(r'<th scope="col">(.*?)</th>', section)
    position = heads.index(column)
    rows = re.findall(r"<tr>(.*?)</tr>", section.split("<tbody>")[1])
    return [re.findall(r"<td[^>]*>(.*?)</td>", row)[position] for row in rows]


def test_the_leaderboard_marks_neighbours_that_cannot_be_told_apart(ranked: list[Path]) -> None:
    html = build_report(ranked, images=False).html
    cells = _leaderboard_cells(html, "MME perception")
    marked = ["≈" in cell for cell in cells]
    # strong and twin are indistinguishable: the lower of the two is marked; weak differs from both.
    assert marked.count(True) == 1 and not marked[1]
    comparison = compare(ranked)
    row = comparison.row("mme", "score", "perception", 0, 2)
    assert row is not None and not row.significant
    found = re.search(r'title="([^"]*)"', cells[marked.index(True)])
    assert found is not None
    title = unescape(found.group(1))
    assert f"p = {row.p_value:.3f}" in title and f"Holm-adjusted {row.p_final:.3f}" in title
    weak = comparison.row("mme", "score", "perception", 0, 1)
    assert weak is not None and weak.significant


def test_the_significance_section_has_the_compare_numbers(ranked: list[Path], tmp_path: Path) -> None:
    report = build_report(ranked[:2], images=False)
    assert 'id="significance"' in report.html and 'href="#significance"' in report.html
    names = {table.name: table for table in report.tables}
    headline = names["significance_1_vs_2_mme"]
    (pair,) = compare(ranked[:2]).pairs
    expected = [r for r in pair.rows if r.headline]
    assert [row[0] for row in headline.rows] == ["perception score", "cognition score"]
    for row, metric in zip(headline.rows, expected, strict=True):
        assert row[1:6] == [metric.a, metric.b, metric.difference, metric.low, metric.high]
        assert row[9] == metric.p_value and row[-1] == "differs"
    assert len(names["significance_1_vs_2_mme_breakdowns"].rows) == 3 * 5
    assert names["leaderboard_neighbours"].rows
    write_report(ranked[:2], tmp_path / "r.html", csv_dir=tmp_path / "csv", images=False)
    assert (tmp_path / "csv" / "significance_1_vs_2_mme.csv").exists()


def test_runs_on_other_data_are_noted_not_fatal(ranked: list[Path], tmp_path: Path) -> None:
    other = oracle_run(tmp_path / "other", write_release(tmp_path / "release", 5, variant="x"))
    html = build_report([ranked[0], other], images=False).html
    assert "not compared" in html and "different data" in html


def _mixed(text: str) -> str:
    """Some answers a bare letter (rule-read), some unreadable (left to the judge)."""
    code = sum(map(ord, text))
    return "Hard to say." if code % 3 == 0 else "ABCD"[code % 4]


def test_a_run_shows_what_its_judge_decided_and_its_agreement_studies(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "judged"
    with FakeOpenAIServer(answer=_mixed) as server:
        done = cli("run", "--bench", "mmbench", "--model", f"openai:m@{server.base_url}", "--judge", "mock:B",
                   "--out", out, "--no-cache")
    assert done.code == 0, done.err
    assert "Answers no rule could read, and what the judge (mock:B) made of them" in done.out
    audit_judge(out, "mock:A", sample=5, seed=2, cache=False)
    report = build_report([out], images=False)
    section = report.html[report.html.index('id="run1-mmbench"'):]
    assert "Answers no rule could read" in section and "read by the judge (mock:B)" in section
    names = {table.name: table for table in report.tables}
    stored = judge_audit(out).benchmarks["mmbench"]
    table = names["run1_judge_audit_mmbench"]
    assert [row[:5] for row in table.rows] == [
        [b.measure, b.unit, b.value, b.all_wrong, b.all_right] for b in stored.bounds]
    agreement = names["run1_judge_agreement"]
    assert agreement.rows[0][:7] == [1, "mock:A", None, 2, "all", "judge vs rules", 5]
    assert "Judge agreement (1 studies)" in report.html


def test_hostile_labels_and_categories_are_escaped_in_the_new_sections(
    hostile_run: Path, runs: tuple[Path, Path], payloads: tuple[str, ...]
) -> None:
    html = build_report([hostile_run, runs[0]], images=False).html
    section = html[html.index('id="significance"'):html.index('id="compare"')]
    board = html[html.index('id="leaderboard"'):html.index('id="significance"')]
    assert "category " in section  # the poisoned MMBench categories are compared, as text
    for payload in payloads:
        assert payload not in section and payload not in board
    assert "&lt;script&gt;" in section
    assert 'title="not distinguishable from run' in board
    assert re.search(r'title="[^"]*&lt;script&gt;', board)  # the hostile model name, escaped in the title
