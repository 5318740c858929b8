"""`mmgauge.score_mmbench` comes from the benchmark's `library_functions` hook: `import mmgauge` names no
benchmark, and an unknown name is still an AttributeError."""

from __future__ import annotations

import pytest

import mmgauge
from mmgauge.benchmarks.mmbench import scores


def test_the_hook_s_functions_are_mmgauge_s() -> None:
    assert mmgauge.score_mmbench is scores.score_mmbench
    assert mmgauge.score_mmbench_async is scores.score_mmbench_async
    assert {"score_mmbench", "score_mmbench_async", "score_mme", "evaluate"} <= set(dir(mmgauge))
    with pytest.raises(AttributeError, match="no attribute 'score_nothing'"):
        _ = mmgauge.score_nothing
