"""A request that failed in the run is never scored: its question group waits for the retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.core.types import ModelResponse, SampleRecord


def test_group_with_a_failed_request_is_pending_not_wrong(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    records = []
    failed_group = dataset.samples[0].metadata["g_index"]
    for n, sample in enumerate(dataset.samples):
        fails = n == 0
        response = ModelResponse(error="HTTP 500") if fails else ModelResponse(text=sample.answer)
        extraction = None if fails else bench.extract(sample, sample.answer or "")
        records.append(SampleRecord(
            benchmark="mmbench", sample_id=sample.id, fingerprint=str(n), prompt="", response=response,
            extraction=extraction, target=sample.answer, correct=None if fails else True,
            metadata=bench.record_metadata(sample),
        ))
    groups = {s.metadata["g_index"] for s in dataset.samples}
    result = bench.score(records)
    assert result.pending_groups == 1
    assert result.n_groups == len(groups) - 1
    assert str(failed_group) not in result.groups
    assert result.overall == 1.0  # every scored group is right; the failed one is not counted wrong
    assert result.vanilla == 1.0
    # All n groups right: the exact (Clopper-Pearson) interval is [0.025^(1/n), 1], no longer the point
    # (1.0, 1.0) the former percentile bootstrap gave.
    assert result.overall_ci95 == result.vanilla_ci95
    assert result.overall_ci95 is not None and result.overall_ci95[1] == 1.0
    assert result.overall_ci95[0] == pytest.approx(0.025 ** (1 / result.n_groups), rel=1e-12)
    assert any("not scored yet" in line for line in result.headline())



def test_when_every_request_failed_the_headline_says_so_not_that_the_answer_key_is_missing(
    tmp_path: Path,
) -> None:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    records = [SampleRecord(
        benchmark="mmbench", sample_id=s.id, fingerprint=str(n), prompt="",
        response=ModelResponse(error="HTTP 500"), extraction=None, target=s.answer, correct=None,
        metadata=bench.record_metadata(s),
    ) for n, s in enumerate(dataset.samples)]
    groups = {s.metadata["g_index"] for s in dataset.samples}
    result = bench.score(records)
    assert result.overall is None and result.unanswered_groups == 0
    assert result.headline() == [f"no question group scored: the {len(groups)} with an answer key all have "
                                 "failed requests (scored once their requests succeed)"]
    assert bench.score([]).headline() == ["no question group to score"]

def test_summary_prints_circular_and_vanilla_with_interval_and_n(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    records = [SampleRecord(
        benchmark="mmbench", sample_id=s.id, fingerprint=str(n), prompt="", response=ModelResponse(text="Z"),
        extraction=bench.extract(s, "Z"), target=s.answer, correct=False, metadata=bench.record_metadata(s),
    ) for n, s in enumerate(dataset.samples)]
    result = bench.score(records)
    rows = dict(bench.summary(result))
    assert result.overall_ci is not None and result.overall == 0.0
    high = 100 * result.overall_ci.high
    assert rows["MMBench circular"] == f"0.00% (95% CI 0.00-{high:.2f}, n={result.n_groups})"
    assert rows["MMBench vanilla"] == f"0.00% (95% CI 0.00-{high:.2f}, n={result.n_groups})"
