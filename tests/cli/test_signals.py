"""SIGTERM (from `timeout`, SLURM, Kubernetes) stops a run like Ctrl-C: what is finished is kept, judge
verdicts included, one line says how to resume, and the status is 143."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mmgauge.testing.server import FakeOpenAIServer

#: Answers no rule can read: every M3GIA question goes to the judge.
UNREADABLE = "mock:I really cannot tell from this picture"


def start_cli(*args: str | Path) -> subprocess.Popen[str]:
    """`mmgauge ARGS` in a child whose SIGINT is the default, whatever the test runner's is."""
    code = "import sys; from mmgauge.cli.main import main; main(sys.argv[1:])"
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def judged_run(server: FakeOpenAIServer, out: Path, cache: Path) -> list[str | Path]:
    # Four rounds, each showing the options in its own order: 120 judge questions, most of them different.
    return ["run", "--bench", "m3gia", "--rounds", "4", "--shuffle-options", "--model", UNREADABLE,
            "--judge", f"openai:judge@{server.base_url}", "--cache-path", cache, "--out", out]


@dataclass
class Stopped:
    """A judge pass stopped by a signal, and its resume: the judge requests each made, and the stopped run."""

    total: int
    before: int
    resumed: int
    status: int
    err: str


def stop_judge_pass(tmp_path: Path, signum: int) -> Stopped:
    with FakeOpenAIServer(latency_s=0.15, answer=lambda text: "B") as server:
        # How many judge calls the whole pass makes, in a folder and cache of its own.
        reference = start_cli(*judged_run(server, tmp_path / "reference", tmp_path / "reference.sqlite"))
        _, err = reference.communicate(timeout=120)
        assert reference.returncode == 0, err
        total = server.requests
        assert total >= 60

        server.requests = 0
        args = judged_run(server, tmp_path / "run", tmp_path / "c.sqlite")
        job = start_cli(*args)
        started = time.monotonic()
        while server.requests < total // 3 and time.monotonic() - started < 120:
            time.sleep(0.01)
        job.send_signal(signum)
        _, err = job.communicate(timeout=60)
        before = server.requests

        server.requests = 0
        resumed = start_cli(*args)
        _, resume_err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, resume_err
        return Stopped(total, before, server.requests, job.returncode, err)


def test_sigterm_in_the_judge_pass_says_how_to_resume_and_exits_143(tmp_path: Path) -> None:
    stopped = stop_judge_pass(tmp_path, signal.SIGTERM)
    assert stopped.status == 143, stopped.err
    lines = [line for line in stopped.err.splitlines() if line.strip()]
    assert lines == ["terminated (SIGTERM): every finished sample is kept in the run folder; run the same "
                     "command to resume"]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["invocations"][-2]["status"] == "interrupted"
    # Only the judge requests in flight at the signal (at most the judge's concurrency, 8) are asked again.
    assert stopped.before < stopped.total
    assert stopped.resumed <= stopped.total - stopped.before + 8


def test_judge_verdicts_outlive_a_kill_like_model_answers(tmp_path: Path) -> None:
    stopped = stop_judge_pass(tmp_path, signal.SIGKILL)
    assert stopped.status == -signal.SIGKILL
    assert stopped.before < stopped.total
    assert stopped.resumed <= stopped.total - stopped.before + 8
