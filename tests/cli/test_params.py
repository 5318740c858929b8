"""Plain `score` invocations are read from the commands' declarations exactly as Typer reads them, and run
without Typer; anything else is left to Typer."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from mmgauge.cli.level import level_command
from mmgauge.cli.m3gia import gia_command
from mmgauge.cli.mmbench import score_mmbench
from mmgauge.cli.mme import score_command
from mmgauge.cli.params import for_typer, parse_plain


def typer_values(command: Callable[..., Any], args: list[str]) -> dict[str, Any] | None:
    """What Typer passes `command` for `args` (None if Typer refuses them)."""
    seen: dict[str, Any] = {}
    typed = for_typer(command)

    def record(**values: Any) -> None:
        seen.update(values)

    record.__signature__ = typed.__signature__  # type: ignore[attr-defined]
    record.__annotations__ = typed.__annotations__
    app = typer.Typer()
    app.command()(record)
    result = CliRunner().invoke(app, args)
    return seen if result.exit_code == 0 else None


PLAIN = [
    (score_command, ["f"]),
    (score_command, ["f", "--json"]),
    (score_command, ["--json", "f"]),
    (score_command, ["f", "--parser", "words"]),
    (score_command, ["f", "--parser=words", "--json"]),
    (score_mmbench, ["p.tsv"]),
    (score_mmbench, ["p.tsv", "--seed", "7", "--json"]),
    (score_mmbench, ["p.tsv", "--seed=12", "--literal-options", "--random-fallback", "--judge", "mock:A"]),
    (gia_command, ["--language", "en", "--counts", "c.csv"]),
    (gia_command, ["--counts", "c.csv", "--language", "zh", "--json", "--ignore", "a", "--ignore=b"]),
    (gia_command, ["--language", "en", "--counts", "c.csv", "--scale", "standardised", "--human-stats", "h"]),
    (level_command, ["r.csv"]),
    (level_command, ["a.csv", "b", "--model", "m", "--mode", "official", "--json", "--sota", "s.xlsx"]),
]
LEFT_TO_TYPER = [
    (score_command, []),
    (score_command, ["f", "--help"]),
    (score_command, ["f", "--bogus"]),
    (score_command, ["f", "--parser"]),
    (score_command, ["f", "--json", "--json"]),
    (score_command, ["f", "g"]),
    (score_command, ["--", "f"]),
    (score_command, ["f", "--json=yes"]),
    (score_mmbench, ["p.tsv", "--seed", "-1"]),
    (score_mmbench, ["p.tsv", "--seed", "1_0"]),
    (score_mmbench, ["p.tsv", "--seed", "x"]),
    (score_mmbench, ["p.tsv", "--seed", "3", "--seed", "4"]),
    (score_mmbench, [""]),
    (gia_command, ["--language", "en"]),
    (gia_command, ["--language", "en", "--counts", "c.csv", "--scale", "Official"]),
    (level_command, []),
    (level_command, ["r.csv", "--mode", "other"]),
]


@pytest.mark.parametrize(("command", "args"), PLAIN)
def test_a_plain_invocation_gets_exactly_the_values_typer_gives(command: Callable[..., Any],
                                                                 args: list[str]) -> None:
    plain = parse_plain(command, args)
    assert plain is not None
    assert plain == typer_values(command, args)
    assert {name: type(value) for name, value in plain.items()} == \
        {name: type(value) for name, value in (typer_values(command, args) or {}).items()}


@pytest.mark.parametrize(("command", "args"), LEFT_TO_TYPER)
def test_help_errors_and_unusual_spellings_are_left_to_typer(command: Callable[..., Any],
                                                            args: list[str]) -> None:
    assert parse_plain(command, args) is None


def test_a_plain_score_command_runs_without_importing_typer(tmp_path: Path) -> None:
    counts = tmp_path / "en.csv"
    cfa = resources.files("mmgauge").joinpath("data", "m3gia", "cfa", "en.csv")
    counts.write_text(cfa.read_text(encoding="utf-8"), encoding="utf-8")
    args = ["score", "m3gia", "--language", "en", "--counts", str(counts), "--ignore", "subid",
            "--ignore", "total_acc", "--ignore", "Unnamed: 20", "--json"]
    code = ("import sys\nfrom mmgauge.cli.main import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit as stop:\n"
            "    sys.stderr.write(f'exit {stop.code} typer {\"typer\" in sys.modules}')")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    assert done.stderr.endswith("exit 0 typer False")
    rows = json.loads(done.stdout)["rows"]
    assert len(rows) == 15 and rows[0]["gia"] == pytest.approx(14.8479993764033, abs=1e-6)


def test_a_usage_error_is_typer_s_one_line(tmp_path: Path, cli: Any) -> None:
    done = cli("score", "mmbench", tmp_path / "p.tsv", "--seed", "x")
    assert done.code == 2 and done.err.startswith("error: ") and "--seed" in done.err
