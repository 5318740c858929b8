"""Commands declared with `Arg`/`Opt` are read by Click alone (one parser), and a command line imports only
the module of the command it names."""

from __future__ import annotations

import json
import subprocess
import sys
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import pytest
from click.testing import CliRunner

from mmgauge.cli.params import command_for
from mmgauge.core.params import Arg, Opt


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


class Tone(str, Enum):
    warm = "warm"
    cold = "cold"


def declared_command(
    paths: Annotated[list[Path], Arg(help="Files.")],
    tone: Annotated[Tone, Opt("--tone", case_sensitive=False)] = Tone.warm,
    tags: Annotated[list[str] | None, Opt("--tag")] = None,
    rounds: Annotated[int, Opt("--rounds", min=1)] = 1,
    images: Annotated[bool, Opt("--images/--no-images")] = True,
    verbose: Annotated[int, Opt("-v", count=True)] = 0,
) -> dict[str, Any]:
    return {"paths": paths, "tone": tone, "tags": tags, "rounds": rounds, "images": images,
            "verbose": verbose}


def plain_command(path: Path, json: bool = False, seed: int = 0) -> dict[str, Any]:
    return {"path": path, "json": json, "seed": seed}


def test_declarations_become_click_parameters_and_values_arrive_as_annotated() -> None:
    command = command_for("demo", declared_command)
    got = command.main(["a", "b", "--tone", "COLD", "--tag", "x", "--tag", "y", "--no-images", "-vv"],
                       standalone_mode=False)
    assert got == {"paths": [Path("a"), Path("b")], "tone": Tone.cold, "tags": ["x", "y"], "rounds": 1,
                   "images": False, "verbose": 2}
    assert command.main(["a"], standalone_mode=False)["tags"] is None
    assert CliRunner().invoke(command, ["a", "--rounds", "0"]).exit_code == 2
    shown = CliRunner().invoke(command, ["--help"]).stdout
    assert "Usage: demo [OPTIONS] PATHS..." in shown and "PATHS...  Files.  [required]" in shown
    assert "--tone <warm|cold>" in shown and "--tag <str>" in shown and "[repeatable]" in shown
    assert "--rounds <int range>" in shown and "--images / --no-images" in shown


def test_a_plain_annotation_is_read_as_typer_read_it() -> None:
    command = command_for("plain", plain_command)
    got = command.main(["f.tsv", "--json", "--seed", "3"], standalone_mode=False)
    assert got == {"path": Path("f.tsv"), "json": True, "seed": 3}
    assert "--json / --no-json" in CliRunner().invoke(command, ["--help"]).stdout


@pytest.mark.parametrize("args", [
    ["--max-input-rows", "2", "score", "mmbench", "p.tsv", "--bogus"],
    ["score", "mmbench", "p.tsv", "--max-input-rows", "2", "--seed", "x"],
    ["score", "--max-input-rows", "2", "nosuch"],
])
def test_input_caps_end_with_a_command_line_that_fails_to_parse(cli: Any, args: list[str]) -> None:
    from mmgauge.datasources.limits import InputLimits, current_limits

    assert cli(*args).code == 2
    assert current_limits() == InputLimits()
