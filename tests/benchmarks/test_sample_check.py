"""The built-in sample check skips datasets larger than any built-in sample: each sample fits under it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.registry import builtin_benchmarks, get_benchmark
from mmgauge.benchmarks.sample_check import LARGEST_SAMPLE, is_builtin_sample


@pytest.mark.parametrize("name", sorted(builtin_benchmarks()))
def test_every_builtin_sample_is_recognised_under_the_size_bound(name: str, tmp_path: Path) -> None:
    bench = get_benchmark(name)
    if not bench.has_sample_data():
        pytest.skip(f"{name} has no built-in sample")
    dataset = bench.load(bench.sample_data(tmp_path / "sample"))
    assert len(dataset.samples) <= LARGEST_SAMPLE
    assert is_builtin_sample(bench, dataset)
