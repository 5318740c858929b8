"""Shell completion: a script for each shell, and answers to the shell's TAB over Click's protocol."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import mmgauge

#: Where the mmgauge under test is, for the subprocesses.
SRC = Path(mmgauge.__file__).resolve().parents[1]


def complete(words: str, shell: str = "bash") -> list[str]:
    """What `mmgauge` answers a TAB at the end of `words`, asked as the shell's script asks."""
    parts = words.split(" ")
    env = {**os.environ, "_MMGAUGE_COMPLETE": f"{shell}_complete", "COMP_WORDS": words,
           "COMP_CWORD": str(len(parts) - 1), "PYTHONPATH": str(SRC)}
    result = subprocess.run([sys.executable, "-m", "mmgauge.cli.main"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # Click's bash answer: one `TYPE,VALUE` line per completion.
    return [line.partition(",")[2] for line in result.stdout.splitlines()]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_gets_a_script_that_calls_mmgauge_back(cli: Any, shell: str) -> None:
    result = cli("completion", shell)
    assert result.code == 0 and result.out.strip()
    assert "_MMGAUGE_COMPLETE" in result.out and "mmgauge" in result.out


def test_an_unknown_shell_is_one_line(cli: Any) -> None:
    assert "tcsh" in cli("completion", "tcsh").error_line()


def test_completing_ru_offers_run() -> None:
    assert complete("mmgauge ru") == ["run"]


def test_completion_reaches_groups_and_the_options_of_a_command() -> None:
    assert {"mme", "mmbench"} <= set(complete("mmgauge score m"))
    assert {"--config", "--concurrency"} <= set(complete("mmgauge run --con"))
