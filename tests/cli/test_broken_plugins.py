"""A plug-in that fails on import is its own problem: `list` shows it in one line and lists the rest, a run
that uses it ends in one line with status 2, and runs that do not use it are unaffected. Each plug-in is a
real installed package (module plus .dist-info with entry points), used by the command in a fresh process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mmgauge.testing.plugins import install, run_cli

#: What the module runs on import -> the type and message `list` must show.
FAULTS = {
    "runtime-error": ('raise RuntimeError("no CUDA driver found")\n', "RuntimeError: no CUDA driver found"),
    "syntax-error": ("def answer(:\n    pass\n", "SyntaxError: "),
    "zero-division": ("RATE = 1 / 0\n", "ZeroDivisionError: division by zero"),
    "sys-exit": ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
}

HEALTHY = '''from mmgauge.benchmarks.yesno import YesNoBenchmark


class QuizBenchmark(YesNoBenchmark):
    name = "quiz"
    description = "yes/no questions from a file"
'''


def broken_site(site: Path, code: str) -> Path:
    """One broken distribution (a benchmark and a backend), and a healthy one listed after it."""
    install(site, "broken-plugin", {"broken_plugin/__init__.py": code},
            {"mmgauge.benchmarks": {"broken": "broken_plugin:BrokenBenchmark"},
             "mmgauge.backends": {"brokenback": "broken_plugin:BrokenBackend"}})
    return install(site, "quiz-plugin", {"quiz_plugin.py": HEALTHY},
                   {"mmgauge.benchmarks": {"quiz": "quiz_plugin:QuizBenchmark"}})


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("fault", FAULTS)
def test_list_shows_a_broken_plugin_in_one_line_and_goes_on(tmp_path: Path, fault: str) -> None:
    code, error = FAULTS[fault]
    done = run_cli(broken_site(tmp_path / "site", code), "list")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    bench = [line for line in lines if line.startswith("broken ")]
    assert bench == [line for line in lines if "BrokenBenchmark" in line]  # one line, however long
    assert len(bench) == 1
    assert bench[0].startswith("broken (plug-in): cannot be loaded from broken_plugin:BrokenBenchmark: "
                               + error)
    backend = [line for line in lines if "BrokenBackend" in line]
    assert len(backend) == 1
    assert backend[0].startswith("brokenback (plug-in): cannot be loaded from broken_plugin:BrokenBackend: "
                                 + error)
    # The rest is listed: the built-in benchmarks and backends, and the healthy plug-in after the broken one.
    assert any(line.startswith("quiz (plug-in)  yes/no questions from a file") for line in lines)
    assert any(line.startswith("mme  MME:") for line in lines) and "│ mock " in done.stdout
    assert "Model specs:" in done.stdout


@pytest.mark.parametrize("fault", FAULTS)
def test_a_run_of_a_broken_plugin_benchmark_is_one_line_with_status_2(tmp_path: Path, fault: str) -> None:
    code, error = FAULTS[fault]
    done = run_cli(broken_site(tmp_path / "site", code), "run", "--bench", "broken", "--model", "mock:yes",
                   "--out", tmp_path / "run", "--no-cache")
    line = one_error_line(done)
    assert "benchmark 'broken' cannot be loaded from broken_plugin:BrokenBenchmark: " + error in line


def test_a_run_with_a_broken_plugin_backend_is_one_line_with_status_2(tmp_path: Path) -> None:
    code, error = FAULTS["runtime-error"]
    done = run_cli(broken_site(tmp_path / "site", code), "run", "--bench", "mme", "--limit", "2",
                   "--model", "brokenback:anything", "--out", tmp_path / "run", "--no-cache")
    line = one_error_line(done)
    assert "backend 'brokenback' cannot be loaded from broken_plugin:BrokenBackend: " + error in line


def test_a_run_that_does_not_use_the_broken_plugin_is_unaffected(tmp_path: Path) -> None:
    code, _ = FAULTS["sys-exit"]
    done = run_cli(broken_site(tmp_path / "site", code), "run", "--bench", "mme", "--limit", "2",
                   "--model", "mock:yes", "--out", tmp_path / "run", "--no-cache")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["benchmarks"]["mme"]["records"] == 2


def test_ctrl_c_while_a_plugin_is_imported_still_interrupts(tmp_path: Path) -> None:
    done = run_cli(broken_site(tmp_path / "site", "raise KeyboardInterrupt\n"), "list")
    assert done.returncode == 130 and done.stderr.startswith("interrupted"), done.stderr
