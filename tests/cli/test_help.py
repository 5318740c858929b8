"""`--help` of every command: arguments as NAME (no `{name}` placeholders), flags without a value type, and
one spelling (`--out`) for where a command writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from mmgauge.cli.tree import mounted_app


def command_paths() -> list[tuple[str, ...]]:
    """Every command and group, hidden ones (old spellings) included."""
    root: Any = typer.main.get_command(mounted_app())
    found: list[tuple[str, ...]] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))

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


def _help_pages(app: typer.Typer) -> dict[tuple[str, ...], str]:
    """The help page of the root and of every group (their command listings), by path."""
    root: Any = typer.main.get_command(app)
    pages: dict[tuple[str, ...], str] = {}

    def walk(command: Any, path: tuple[str, ...], parent: Any) -> None:
        if not hasattr(command, "commands"):
            return
        context = command.make_context(" ".join(("mmgauge", *path)), [], parent=parent,
                                       resilient_parsing=True)
        pages[path] = command.get_help(context)
        for name, sub in command.commands.items():
            walk(sub, (*path, name), context)

    walk(root, (), None)
    return pages


def test_help_listings_show_what_the_real_tree_shows(cli: Any) -> None:
    from mmgauge.cli.tree import build_app

    listing = _help_pages(build_app(["--help"]))
    assert set(listing) >= {(), ("score",), ("export",), ("cache",), ("cfa",)}
    assert listing == _help_pages(build_app())
    # The listing's stand-ins never replace the real commands in this process.
    assert "Usage: mmgauge report [OPTIONS] RUN_DIRS..." in cli("report", "--help").out
    real: Any = typer.main.get_command(build_app())
    for path in (("cfa", "fit"), ("report",), ("score", "mme")):
        command = real
        for name in path:
            command = command.commands[name]
        assert [p for p in command.params if p.name != "help"], path
