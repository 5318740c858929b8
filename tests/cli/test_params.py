"""Commands declared with `Arg`/`Opt` are read by Click alone (one parser), and a command line imports only
the module of the command it names."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest


def test_a_score_command_imports_only_its_own_command_module(tmp_path: Path) -> None:
    counts = tmp_path / "en.csv"
    cfa = resources.files("mmgauge") / "data" / "m3gia" / "cfa" / "en.csv"
    counts.write_text(cfa.read_text(encoding="utf-8"), encoding="utf-8")
    args = ["score", "m3gia", "--language", "en", "--counts", str(counts), "--ignore", "subid",
            "--ignore", "total_acc", "--ignore", "Unnamed: 20", "--json"]
    code = ("import sys\nfrom mmgauge.cli.main import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit as stop:\n"
            "    others = sorted(m for m in sys.modules if m.startswith('mmgauge.cli.') and m not in (\n"
            "        'mmgauge.cli.main', 'mmgauge.cli.tree', 'mmgauge.cli.commands',\n"
            "        'mmgauge.cli.params', 'mmgauge.cli.help_format', 'mmgauge.cli.log_level',\n"
            "        'mmgauge.cli.logs', 'mmgauge.cli.signals'))\n"
            "    sys.stderr.write(f'exit {stop.code} others {others}')")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    assert done.stderr.endswith("exit 0 others []")
    rows = json.loads(done.stdout)["rows"]
    assert len(rows) == 15 and rows[0]["gia"] == pytest.approx(14.8479993764033, abs=1e-6)


@pytest.mark.parametrize(("args", "named"), [
    (["--seed", "x"], "--seed"), (["--seed", "3", "--bogus"], "--bogus"), (["--json=yes"], "--json")])
def test_a_usage_error_is_click_s_one_line(tmp_path: Path, cli: Any, args: list[str], named: str) -> None:
    done = cli("score", "mmbench", tmp_path / "p.tsv", *args)
    assert done.code == 2 and done.err.startswith("error: ") and named in done.err
    assert len(done.err.strip().splitlines()) == 1
