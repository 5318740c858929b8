"""`--help` of every command: arguments as NAME (no `{name}` placeholders), flags without a value type, and
one spelling (`--out`) for where a command writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmgauge.cli.tree import mounted_app


def command_paths() -> list[tuple[str, ...]]:
    """Every command and group, hidden ones (old spellings) included."""
    root: Any = mounted_app()
    found: list[tuple[str, ...]] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        found.append(path)
        if hasattr(command, "list_commands"):
            context = command.make_context("mmgauge", [], resilient_parsing=True)
            for name in command.list_commands(context):
                walk(command.get_command(context, name), (*path, name))

    walk(root, ())
    return found


def test_help_shows_no_placeholders_or_bool_values(cli: Any) -> None:
    paths = command_paths()
    assert ("sample",) in paths and ("export", "mme") in paths and ("m3gia", "gia") in paths
    for path in paths:
        result = cli(*path, "--help")
        assert result.code == 0, (path, result.err)
        usage = result.out.splitlines()[0]
        assert usage.startswith("Usage: mmgauge") and "{" not in usage, (path, usage)
        assert "<bool>" not in result.out and "<list[" not in result.out, path
        lines = result.out.splitlines()
        if "Arguments:" in lines:  # NAME, not `name <type>`
            first = lines[lines.index("Arguments:") + 1].split()[0]
            assert first.rstrip(".").isupper(), (path, first)
    assert "Usage: mmgauge sample [OPTIONS] BENCH" in cli("sample", "--help").out
    assert "Usage: mmgauge report [OPTIONS] RUN_DIRS..." in cli("report", "--help").out
    assert "--data <str> " in cli("run", "--help").out and "[repeatable]" in cli("run", "--help").out


def test_both_exports_write_to_out(cli: Any, tmp_path: Path) -> None:
    assert "--out <path>" in cli("export", "mme", "--help").out
    assert "--official" not in cli("export", "mme", "--help").out  # still accepted, no longer shown
    assert "--out <path>" in cli("export", "mmbench", "--help").out
    run = cli("run", "--model", "mock:Yes", "--bench", "mme", "--out", tmp_path / "run", "--no-cache")
    assert run.code == 0, run.err
    for option in ("--out", "--official"):
        folder = tmp_path / option.strip("-")
        result = cli("export", "mme", tmp_path / "run", option, folder)
        assert result.code == 0, result.err
        assert (folder / "OCR.txt").is_file()
    scored = json.loads(cli("score", "mme", tmp_path / "out", "--json").out)
    assert scored["subtasks"]["OCR"] == json.loads(cli("score", "mme", tmp_path / "official", "--json").out)[
        "subtasks"]["OCR"]
    assert "missing option --out" in cli("export", "mme", tmp_path / "run").error_line()


def test_a_listing_imports_no_command_module_and_shows_the_table_s_help() -> None:
    import subprocess
    import sys

    from mmgauge.cli.commands import COMMANDS

    machinery = ("main", "tree", "commands", "params", "help_format", "log_level", "logs", "signals")
    code = ("import sys\nfrom mmgauge.cli.main import main\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit:\n"
            "    sys.stderr.write(str(sorted(m for m in sys.modules if m.startswith('mmgauge.cli.') and\n"
            f"        m.removeprefix('mmgauge.cli.') not in {machinery!r})))")
    for group in ([], ["export"], ["cache"], ["cfa"]):
        done = subprocess.run([sys.executable, "-c", code, *group, "--help"], capture_output=True, text=True,
                              check=True)
        assert done.stderr == "[]", (group, done.stderr)
        prefix = " ".join(group)
        shown = [command for command in COMMANDS
                 if command.path.rpartition(" ")[0] == prefix and " " not in command.path.removeprefix(prefix)
                 .strip()]
        assert shown
        for command in shown:
            assert command.path.split()[-1] in done.stdout and command.help.split()[0] in done.stdout


def test_score_lists_the_benchmarks_with_a_score_command_and_level(cli: Any) -> None:
    listing = cli("score", "--help").out
    for name in ("mme", "mmbench", "m3gia", "level"):
        assert f"  {name} " in listing
    assert "Usage: mmgauge score mme [OPTIONS] PATH" in cli("score", "mme", "--help").out
