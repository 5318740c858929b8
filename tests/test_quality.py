"""The package stays typed (mypy strict) and lint-clean (ruff); part of the test suite so CI enforces it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is in the 'dev' extra")
def test_ruff_clean() -> None:
    result = run("ruff", "check", "src", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_the_package() -> None:
    pytest.importorskip("mypy")
    result = run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout[-4000:]


def test_no_pickle_and_no_star_imports() -> None:
    offenders = []
    for path in (ROOT / "src").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "import pickle" in text or "from pickle" in text or "import *" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_scoring_imports_without_models_or_http() -> None:
    code = (
        "import sys, mmgauge.scoring.general_level, mmgauge.store.runlog\n"
        "import importlib.util as u\n"
        "names = ('mmgauge.benchmarks.mme.scoring', 'mmgauge.benchmarks.mmbench.scoring',\n"
        "         'mmgauge.benchmarks.m3gia.gia')\n"
        "for name in names:\n"
        "    if u.find_spec(name): __import__(name)\n"
        "heavy = ('torch', 'transformers', 'aiohttp', 'httpx', 'ray', 'semopy')\n"
        "bad = [m for m in heavy if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr


def test_command_line_start_up_imports_nothing_heavy() -> None:
    # Every command pays for what mounting the command line imports; heavy modules load where they are used.
    code = (
        "import sys\n"
        "from mmgauge.cli import tree\n"
        "tree.mounted_app()\n"
        "heavy = ('pandas', 'torch', 'transformers', 'matplotlib', 'ray', 'semopy', 'aiohttp', 'pyarrow')\n"
        "bad = [m for m in heavy if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = run(sys.executable, "-c", code)
    assert result.returncode == 0, result.stderr
