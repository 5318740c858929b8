"""A benchmark needs no built-in sample: a plug-in without `sample_data` runs on the data it is given, and
asked to run on its sample says in one line that it has none and to pass --data (a real installed package,
used by the command in a fresh process)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mmgauge.testing.plugins import install, run_cli

QUIZ = '''from mmgauge.benchmarks.yesno import YesNoBenchmark


class QuizBenchmark(YesNoBenchmark):
    name = "quiz"
    description = "yes/no questions from a file"
'''

ROWS = [{"id": "q1", "question": "Is the sky blue?", "answer": "yes"},
        {"id": "q2", "question": "Is grass red?", "answer": "no"},
        {"id": "q3", "question": "Is snow white?", "answer": "yes"}]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return install(tmp_path / "site", "quiz-plugin", {"quiz_plugin.py": QUIZ},
                   {"mmgauge.benchmarks": {"quiz": "quiz_plugin:QuizBenchmark"}})


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def test_a_plugin_without_sample_data_runs_on_the_data_given(site: Path, tmp_path: Path) -> None:
    data = tmp_path / "quiz.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    done = run_cli(site, "run", "--bench", "quiz", "--data", data, "--model", "mock:yes",
                   "--out", tmp_path / "run", "--no-cache")
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["benchmarks"]["quiz"]["records"] == 3


def test_running_it_without_data_says_it_has_no_sample_in_one_line(site: Path, tmp_path: Path) -> None:
    done = run_cli(site, "run", "--bench", "mme,quiz", "--model", "mock:yes", "--out", tmp_path / "run",
                   "--no-cache")
    line = one_error_line(done)
    assert "benchmark 'quiz' has no built-in sample; pass its data with --data" in line
    # Said before anything was written: not even the other benchmark's sample.
    assert not (tmp_path / "run" / "sample-data").exists()


def test_asking_for_its_sample_says_it_has_none_in_one_line(site: Path, tmp_path: Path) -> None:
    done = run_cli(site, "sample", "quiz", "--out", tmp_path / "quiz")
    assert "benchmark 'quiz' has no built-in sample" in one_error_line(done)
    assert not (tmp_path / "quiz").exists()


def test_list_says_it_has_no_sample(site: Path) -> None:
    done = run_cli(site, "list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("quiz (plug-in)  yes/no questions from a file")
    assert lines[at + 1] == "    no built-in sample: run it with --data"
