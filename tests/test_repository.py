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


def test_readme_commands_unchanged_and_cpu_torch_explained() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first, second = readme.split("```bash\n", 1)[1].split("\n")[:2]
    assert first.startswith('pip install "torch==2.13.0" -e ".[embedded,report]" && ')
    assert second in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # The pin picks the version, not the build: say how to get the CPU wheel where the index is plain PyPI.
    assert "--index-url https://download.pytorch.org/whl/cpu" in readme
    assert "pinned so that pip takes the CPU build" not in readme
