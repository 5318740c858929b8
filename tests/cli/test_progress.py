"""What a user sees while a run goes: log lines without a terminal, honest rates, the Ctrl-C message."""

from __future__ import annotations

import io
import json
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text

from mmgauge.backends.base import Request
from mmgauge.cli.progress import PlainProgress, RateWindow, RichProgress
from mmgauge.core.types import ModelResponse
from mmgauge.testing.server import FakeOpenAIServer
from mmgauge.testing.toy import write_toy_data

TOY = ("from mmgauge.benchmarks import registry; "
       "registry.BENCHMARKS['toy'] = 'mmgauge.testing.toy:ToyBenchmark'")


def run_cli(*args: str) -> subprocess.Popen[str]:
    """The CLI in a child whose Ctrl-C is the default: a CI runner that starts jobs in the background has
    SIGINT ignored, and a child would inherit that and never see the test's Ctrl-C."""
    code = f"import sys; {TOY}; from mmgauge.cli.main import main; main(sys.argv[1:])"
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_a_batch_log_gets_progress_lines_while_the_run_goes(tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 30)
    log = tmp_path / "job.log"
    with FakeOpenAIServer(latency_s=0.1) as server, log.open("w") as sink:
        code = f"import sys; {TOY}; from mmgauge.cli.main import main; main(sys.argv[1:])"
        job = subprocess.Popen(
            [sys.executable, "-c", code, "run", "--model", f"openai:toy@{server.base_url}", "--bench", "toy",
             "--data", str(data), "--out", str(tmp_path / "run"), "--no-cache", "--concurrency", "1",
             "--progress-every", "0.3"], stdout=sink, stderr=subprocess.STDOUT, text=True)
        seen_mid_run = ""
        while job.poll() is None:
            time.sleep(0.2)
            text = log.read_text()
            if "requests: " in text and "(done)" not in text:
                seen_mid_run = text
        assert job.returncode == 0, log.read_text()
    assert "requests: " in seen_mid_run and "/30" in seen_mid_run and "errors 0" in seen_mid_run
    # Before the first request: what it is doing while data and model load.
    assert "loading toy data from" in seen_mid_run and "starting model openai:toy" in seen_mid_run


def test_plain_lines_come_at_a_steady_interval_even_when_nothing_finishes() -> None:
    out = io.StringIO()
    progress = PlainProgress(out, interval=0.05)
    progress.start(10, "requests")
    time.sleep(0.3)
    progress.advance()
    progress.finish()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("requests: 0/10") and lines[-1].endswith("(done)")
    assert len([line for line in lines if line.startswith("requests: 0/10")]) >= 3


def test_a_burst_at_the_start_shows_no_absurd_rate() -> None:
    window = RateWindow()
    window.start()
    for done in range(1, 9):
        window.mark(done)  # eight answers of one batch arriving at once
    assert window.rate(8) is None


def test_ctrl_c_says_how_to_resume(tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "data", 40)
    out = tmp_path / "run"
    with FakeOpenAIServer(latency_s=1.0) as server:
        job = run_cli("run", "--model", f"openai:toy@{server.base_url}", "--bench", "toy", "--data",
                      str(data), "--out", str(out), "--no-cache", "--concurrency", "2")
        # Interrupt once the run is under way (its manifest written), however slowly the machine starts it.
        started = time.monotonic()
        while not (out / "manifest.json").exists() and time.monotonic() - started < 60:
            time.sleep(0.1)
        time.sleep(1.5)
        job.send_signal(signal.SIGINT)
        out_text, err = job.communicate(timeout=60)
    assert job.returncode == 130, err
    # The requests' last progress line says how they ended.
    assert [line for line in out_text.splitlines() if line.startswith("requests: ")][-1].endswith(
        "(interrupted)"), out_text
    assert "interrupted: every finished sample is kept in the run folder; run the same command to " \
           "resume" in err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["invocations"][-1]["status"] == "interrupted"


def test_failed_attempts_and_concurrency_show_live() -> None:
    out = io.StringIO()
    progress = PlainProgress(out, interval=10)
    progress.watch_concurrency(lambda: 16)
    progress.watch_retries(lambda: 3)
    progress.start(2, "requests")
    progress.advance(failed=True)
    progress.finish()
    assert "errors 1" in out.getvalue() and "concurrency 16, failed attempts 3" in out.getvalue()


def test_a_missing_key_stops_before_any_progress(tmp_path: Path, cli: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_KEY", raising=False)
    with FakeOpenAIServer() as server:
        result = cli("run", "--model", f"openai:m@{server.base_url}", "--api-key-env", "NO_SUCH_KEY",
                     "--bench", "mme", "--out", tmp_path / "run", "--no-cache")
        assert "NO_SUCH_KEY (the API key) is not set" in result.error_line()
        assert server.requests == 0
    assert "requests" not in result.out


def test_the_terminal_eta_is_the_shown_rate_applied_to_what_is_left(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from mmgauge.cli import progress as module

    clock = [0.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: clock[0])
    screen = io.StringIO()
    progress = RichProgress(Console(file=screen, force_terminal=True, width=200))
    progress.start(122, "requests")
    clock[0] = 10.0
    progress.advance()  # 1 answer in 10 s: 0.1 req/s, 121 left
    progress.finish()
    last = Text.from_ansi(screen.getvalue()).plain.splitlines()[-1]
    assert "0.1 req/s" in last and "ETA 20m10s" in last, last


def test_backend_stages_get_lines_of_their_own_while_nothing_is_answered(toy: None, tmp_path: Path) -> None:
    from mmgauge.api.evaluate import evaluate
    from mmgauge.backends.base import stage
    from mmgauge.backends.mock import MockBackend

    class Slow(MockBackend):
        async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
            with stage(self.stage_listener, "warming up"):
                time.sleep(0.3)
            return await super().generate(batch)

    log = io.StringIO()
    evaluate(Slow("yes"), "toy", write_toy_data(tmp_path / "data", 3), tmp_path / "run", cache=False,
             concurrency=1, progress=PlainProgress(log, interval=0.1))
    lines = log.getvalue().splitlines()
    assert "warming up (started)" in lines
    assert any(line.startswith("warming up: ") and line.endswith("so far") for line in lines)
    assert any(line.startswith("warming up: done in ") for line in lines)
    assert lines.index("warming up (started)") > lines.index("requests: 0/3 (0.0%), - req/s, errors 0, "
                                                              "cache hits 0 (started)")


def test_an_interrupted_phase_ends_with_interrupted() -> None:
    out = io.StringIO()
    progress = PlainProgress(out, interval=10)
    progress.start(5, "judge (mmbench)")
    progress.advance()
    progress.finish("interrupted")
    assert out.getvalue().splitlines()[-1].endswith("(interrupted)")


def test_a_stage_that_counts_its_steps_shows_how_far_it_has_come() -> None:
    from mmgauge.backends.base import Stage

    out = io.StringIO()
    progress = PlainProgress(out, interval=0.05)
    progress.start(4, "requests")
    progress.stage(Stage("converting"))
    for done in range(3):
        progress.stage(Stage("converting", done=done, total=10))
    time.sleep(0.2)
    progress.stage(Stage("converting", ended=True))
    progress.finish()
    lines = out.getvalue().splitlines()
    assert any(line.startswith("converting: 2/10, ") and line.endswith("so far") for line in lines)
    assert lines.count("converting (started)") == 1  # a step is no line of its own
    assert any(line.startswith("converting: done in ") for line in lines)


def test_a_counted_stage_gets_a_bar_with_its_steps_on_a_terminal() -> None:
    from rich.console import Console

    from mmgauge.backends.base import Stage

    screen = io.StringIO()
    progress = RichProgress(Console(file=screen, force_terminal=True, width=200))
    progress.start(4, "requests")
    progress.stage(Stage("converting"))
    progress.stage(Stage("converting", done=7, total=10))
    assert progress._progress is not None
    progress._progress.refresh()
    assert "7/10" in Text.from_ansi(screen.getvalue()).plain
    progress.finish()
