"""The command line contract: one clear line and exit status 2 for every error a user can cause; quiet when
the reader of its output goes away."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mmgauge.benchmarks.m3gia.gia import load_published_model
from mmgauge.testing.toy import write_toy_data


def one_line_error(result: Any) -> str:
    assert result.code == 2, (result.out, result.err)
    lines = [line for line in result.err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.err
    return result.err


def test_help_and_version(cli: Any) -> None:
    result = cli("--help")
    assert result.code == 0
    for command in ("run", "list", "score", "cache", "sample"):
        assert command in result.out
    assert "0.1.0" in cli("--version").out
    run_help = cli("run", "--help").out
    assert "--model" in run_help and "--concurrency" in run_help and "resumes" in run_help


def test_list_shows_backends_and_benchmarks(cli: Any, toy: None) -> None:
    result = cli("list")
    assert result.code == 0
    for name in ("embedded", "openai", "hf", "replay", "toy"):
        assert name in result.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "--bench", "nosuch", "--model", "mock"], "unknown benchmark 'nosuch'"),
        (["run", "--bench", "toy", "--model", "gpt9"], "unknown model spec 'gpt9'"),
        (
            ["run", "--bench", "toy", "--model", "mock", "--data", "/no/such/file.jsonl"],
            "/no/such/file.jsonl",
        ),
        (["run", "--bench", "toy", "--model", "mock", "--limit", "0"], "--limit"),
        (["run", "--bench", "toy", "--model", "replay:/no/preds.tsv"], "/no/preds.tsv"),
        (["run", "--bench", "toy", "--model", "mock", "--concurrency", "abc"], "--concurrency"),
    ],
)
def test_user_errors(cli: Any, toy: None, tmp_path: Path, args: list[str], needle: str) -> None:
    err = one_line_error(cli(*args, "--out", tmp_path / "out", "--no-cache"))
    assert needle in err


def test_unreadable_dataset_names_file_and_line(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 3)
    data.write_text(data.read_text() + "{broken\n")
    err = one_line_error(
        cli("run", "--bench", "toy", "--model", "mock", "--data", data, "--out", tmp_path / "o")
    )
    assert "toy.jsonl:4" in err


def test_debug_shows_the_traceback(cli: Any, toy: None, tmp_path: Path) -> None:
    from mmgauge.core.errors import UserError

    with pytest.raises(UserError):
        cli("--debug", "run", "--bench", "nosuch", "--model", "mock", "--out", tmp_path)


def test_cache_commands(cli: Any, toy: None, tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    data = write_toy_data(tmp_path / "d", 5)
    assert (
        cli(
            "run",
            "--bench",
            "toy",
            "--model",
            "mock",
            "--data",
            data,
            "--out",
            tmp_path / "o",
            "--cache-path",
            cache,
        ).code
        == 0
    )
    stats = cli("cache", "stats", "--cache-path", cache)
    assert stats.code == 0 and "5 responses" in stats.out
    cleared = cli("cache", "clear", "--cache-path", cache)
    assert "removed 5" in cleared.out
    assert "0 responses" in cli("cache", "stats", "--cache-path", cache).out


def test_replay_backend_scores_predictions_made_elsewhere(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 4)
    preds = tmp_path / "preds.tsv"
    preds.write_text("index\tprediction\nq000000\tyes\nq000001\tyes\nq000002\tyes\n")  # q000003 missing
    result = cli(
        "run", "--bench", "toy", "--model", f"replay:{preds}", "--data", data, "--out", tmp_path / "o"
    )
    assert result.code == 1 and "1 request(s) failed" in result.out
    # A missing prediction stays missing: the run says so instead of advising a re-run.
    assert "1 x no prediction in the file (the same on every run: fix the cause)" in result.out
    assert "Running the same command again would get the same errors" in result.out
    import json

    outcome = json.loads((tmp_path / "o" / "results.json").read_text())["benchmarks"]["toy"]
    assert outcome["result"] == {"scored": 3, "correct": 2, "failed": 1, "accuracy": 2 / 3}


@pytest.mark.parametrize("command", ["score", "list"])
def test_a_reader_that_went_away_ends_the_command_quietly(tmp_path: Path, command: str) -> None:
    args = [command]
    if command == "score":  # a plain command (no Typer), printing many lines
        counts = tmp_path / "counts.csv"
        header = ",".join(load_published_model("en").indicators)
        counts.write_text(header + "\n" + "1,2,3,4,5,6,7,8,9,0,1,2,3,4,5,6,7,8\n" * 3000)
        args += ["m3gia", "--language", "en", "--counts", str(counts)]
    code = "import sys; from mmgauge.cli.main import main; main(sys.argv[1:])"
    process = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # `| head` that has read its lines: every write the command makes fails
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert error == ""


def test_a_broken_pipe_that_is_not_stdout_is_an_error(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from mmgauge.cli import main

    def command() -> None:
        raise BrokenPipeError(32, "Broken pipe")  # e.g. a worker process gone, while stdout is fine

    monkeypatch.setattr(main, "_run_tree", lambda args: command())
    assert "Broken pipe" in one_line_error(cli("score", "mme", "x"))


def test_only_the_console_script_sets_the_collector_policy(cli: Any) -> None:
    import gc

    from mmgauge.cli.main import NO_FULL_COLLECTIONS

    before = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())
    assert cli("list").code == 0  # main(args) in a process that is not the command's own
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == before
    code = ("import atexit, gc, sys\n"
            "state = lambda: print(gc.get_threshold()[2], gc.get_freeze_count() > 0, gc.isenabled())\n"
            "atexit.register(state)\n"
            "sys.argv = ['mmgauge', 'list']\n"
            "from mmgauge.cli.main import main\n"
            "main()\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f"{NO_FULL_COLLECTIONS} True True"
