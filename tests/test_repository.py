"""The checkout itself: what git must not pick up."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


CHECKOUT = shutil.which("git") is not None and (ROOT / ".git").exists()


@pytest.mark.skipif(not CHECKOUT, reason="needs a git checkout")
@pytest.mark.parametrize("path", [".venv/bin/python", "venv/lib/x.py", "runs/latest/samples.jsonl",
                                  "responses.sqlite"])
def test_local_environments_and_outputs_are_ignored(path: str) -> None:
    result = subprocess.run(["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, timeout=60)
    assert result.returncode == 0, f"{path} is not git-ignored"
