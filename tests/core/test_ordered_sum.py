"""Products summed in a fixed order: the same bits whatever the BLAS thread count and the block sizes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mmgauge.core.ordered_sum import ordered_matmul

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def test_ordered_product_is_the_matrix_product_summed_in_index_order() -> None:
    rng = np.random.default_rng(3)
    left, right, vector = rng.normal(size=(50, 7)), rng.normal(size=(7, 4)), rng.normal(size=7)
    by_hand = np.array([[sum((left[i, t] * right[t, j] for t in range(7)), 0.0) for j in range(4)]
                        for i in range(50)])
    assert ordered_matmul(left, right).tobytes() == by_hand.tobytes()
    assert ordered_matmul(left, vector).tobytes() == np.array(
        [sum((left[i, t] * vector[t] for t in range(7)), 0.0) for i in range(50)]).tobytes()
    assert ordered_matmul(left[17:18], right).tobytes() == ordered_matmul(left, right)[17:18].tobytes()
    with pytest.raises(ValueError, match="cannot multiply"):
        ordered_matmul(left, right.T)


def counts_csv(path: Path, rows: int) -> Path:
    from mmgauge.benchmarks.m3gia.gia import load_published_model, question_counts

    indicators = list(load_published_model("en").indicators)
    maxima = question_counts("en")
    rng = np.random.default_rng(32770)
    body = np.column_stack([rng.integers(0, maxima[c] + 1, rows) for c in indicators])
    lines = [",".join(indicators)] + [",".join(map(str, row)) for row in body]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


SCRIPT = """
import hashlib, sys
import numpy as np
from mmgauge.cli.main import main
from mmgauge.stats.bootstrap import paired_bootstrap, sum_of_group_means

rng = np.random.default_rng(5)
a, b = rng.integers(0, 2, (2400, 2)), rng.integers(0, 2, (2400, 2))
groups = np.repeat(np.arange(14), 2400 // 14 + 1)[:2400]
statistic = sum_of_group_means(groups, 100.0)
result = paired_bootstrap(a, b, statistic, clusters=np.arange(2400) // 2, strata=groups)
print(result.model_dump_json(), flush=True)
try:
    main(["score", "m3gia", "--language", "en", "--counts", sys.argv[1], "--json"])
except SystemExit as stop:
    assert not stop.code, stop.code
"""


def test_scores_and_intervals_do_not_depend_on_the_blas_thread_count(tmp_path: Path) -> None:
    counts = counts_csv(tmp_path / "counts.csv", 32_770)
    digests = {}
    for threads in (None, "1", "2", "4"):
        env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
        if threads is not None:
            env.update(dict.fromkeys(THREAD_VARIABLES, threads))
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(counts)], env=env, capture_output=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        digests[threads] = hashlib.sha256(done.stdout).hexdigest()
    assert len(set(digests.values())) == 1, digests
