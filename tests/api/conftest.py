"""Real runs of the mock model over every built-in benchmark's sample, shared by the export tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mock_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`yes`: answers "Yes" to everything; `letter`: answers "A" (some MMBench/M3GIA questions right)."""
    import mmgauge

    base = tmp_path_factory.mktemp("export-runs")
    runs = {}
    for key, model in (("yes", "mock:Yes"), ("letter", "mock:A")):
        out = base / key
        mmgauge.evaluate(model=model, out=out, cache=False)
        runs[key] = out
    return runs
