"""A verdict never contradicts the interval printed beside it: on two small runs the bootstrap alone says a
score differs (p < 0.001) while the interval, widened to its MOVER floor, still holds 0; the verdict, the
p-value and the interval must tell one story, in the terminal, the JSON and the report, and say how the
verdict was decided."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mmgauge.api.compare import compare
from mmgauge.comparison.core import Comparison
from mmgauge.parts.metric_rows import MetricRow
from mmgauge.report import build_report
from oracles.mme_release import oracle_run, write_release


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two images per subtask: A always right, B right half the time. On `color` B's draws make every
    bootstrap resample favour A (bootstrap p 0), while the floor of 2 images is far wider."""
    base = tmp_path_factory.mktemp("small")
    data = write_release(base / "release", 2)
    return [oracle_run(base / "a", data, base=1.0, seed=1), oracle_run(base / "b", data, base=0.5, seed=2)]


def _color_score(comparison: Comparison) -> MetricRow:
    row = comparison.row("mme", "score", "color", 0, 1)
    assert row is not None
    return row


def test_a_widened_interval_that_holds_zero_is_not_called_a_difference(small: list[Path]) -> None:
    row = _color_score(compare(small))
    assert row.low < 0 < row.high  # the case of the issue: the floor reaches past 0
    assert row.p_bootstrap is not None and row.p_bootstrap < 0.001  # the bootstrap alone would reject
    assert not row.significant
    assert row.p_value > 0.05  # the p-value is the widened interval's, not the bootstrap's
    assert row.verdict_from == "interval"


def test_every_verdict_agrees_with_its_interval(small: list[Path]) -> None:
    for row in compare(small).pairs[0].rows:
        assert row.significant == (row.low > 0 or row.high < 0), (row.metric, row.breakdown)
        if row.p_bootstrap is not None and row.p_value <= 0.05:
            assert row.low > 0 or row.high < 0, (row.metric, row.breakdown)


def test_with_three_runs_a_difference_needs_its_interval_and_holm(small: list[Path]) -> None:
    result = compare([*small, small[0]])
    for pair in result.pairs:
        for row in pair.rows:
            assert row.verdict_from == "interval and Holm"
            assert row.significant == ((row.low > 0 or row.high < 0) and (row.p_final <= 0.05))


def test_the_terminal_says_how_the_verdict_was_decided(small: list[Path], cli: Any) -> None:
    done = cli("compare", *small)
    assert done.code == 0, done.err
    line = next(text for text in done.out.splitlines() if "color score" in text)
    assert "differs" not in line and "≈" in line
    assert "verdict from the 95% interval" in " ".join(done.out.split())


def test_the_report_says_how_the_verdict_was_decided(small: list[Path]) -> None:
    html = build_report(small, images=False).html
    section = html[html.index('id="significance"'):]
    assert "Verdict from the 95% interval" in section
    color = section[section.index("<td>color score"):]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", color[:color.index("</tr>")])
    assert cells[-1] == "≈"
