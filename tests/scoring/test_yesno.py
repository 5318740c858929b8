"""The plain yes/no scorer: accuracy with an exact interval, precision/recall/F1 of "yes", yes-ratio."""

from __future__ import annotations

import pytest

from mmgauge.core.types import Extraction, ModelResponse, SampleRecord
from mmgauge.scoring.yesno import score_yes_no


def record(i: int, truth: str, answer: str | None, category: str = "", failed: bool = False) -> SampleRecord:
    response = ModelResponse(error="boom") if failed else ModelResponse(text=answer or "hmm")
    extraction = None if failed else Extraction(answer=answer, method="words")
    return SampleRecord(benchmark="pope", sample_id=f"q{i}", fingerprint="f", prompt="p", response=response,
                        extraction=extraction, target=truth, metadata={"category": category})


def test_pope_metrics_by_hand() -> None:
    # truth/answer: yes/yes, yes/no, no/yes, no/no, no/no, yes/(neither), one failed request.
    records = [record(0, "yes", "yes", "a"), record(1, "yes", "no", "a"), record(2, "no", "yes", "b"),
               record(3, "no", "no", "b"), record(4, "no", "no", "b"), record(5, "yes", None, "a"),
               record(6, "yes", None, "a", failed=True)]
    result = score_yes_no(records)
    overall = result.overall
    assert overall is not None and result.failed == 1
    assert overall.n == 6 and overall.other == 1
    assert overall.accuracy == pytest.approx(3 / 6)
    assert overall.precision == pytest.approx(1 / 2) and overall.recall == pytest.approx(1 / 3)
    assert overall.f1 == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))
    assert overall.yes_ratio == pytest.approx(2 / 5)
    assert 0 < overall.accuracy_ci.low < 0.5 < overall.accuracy_ci.high < 1 and overall.accuracy_ci.n == 6
    assert result.categories["a"].n == 3 and result.categories["b"].accuracy == pytest.approx(2 / 3)


def test_undefined_ratios_are_none_not_zero() -> None:
    result = score_yes_no([record(0, "no", None), record(1, "no", None)])
    assert result.overall is not None
    assert result.overall.yes_ratio is None and result.overall.precision is None
    assert result.overall.recall is None and result.overall.f1 is None
    assert score_yes_no([record(0, "yes", "yes", failed=True)]).overall is None
