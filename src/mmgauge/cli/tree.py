"""The `mmgauge` command tree in Typer, built from the command table (`commands.py`) as it is walked: a group
lists its commands from the table, and only a command that is reached (run, its help, a TAB) has its module
imported and its parameters read. `main` is the entry.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperGroup

from mmgauge.cli import commands
from mmgauge.cli.help_format import PlainArgumentsCommand
from mmgauge.cli.log_level import LogLevel
from mmgauge.cli.params import declares, for_typer
from mmgauge.core.version import __version__

#: The groups whose `<group> NAME` commands a benchmark's class names, and the hook that names them.
HOOKED_GROUPS = {"score": "score_command", "export": "export_command"}
ROOT_HELP = ("Evaluate multimodal LLMs exactly as the benchmark papers define it (`mmgauge list` shows the "
             "benchmarks and backends).")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mmgauge {__version__}")
        raise typer.Exit()


def _root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show full tracebacks for errors."),
    # Read by `main` wherever they stand (they hold for every file any command reads); here for the help.
    max_input_size: str = typer.Option("4G", "--max-input-size", metavar="SIZE",
                                       help="The most a workbook, parquet or arrow file may unpack to."),
    max_input_rows: int = typer.Option(20_000_000, "--max-input-rows", metavar="N",
                                       help="The most rows such a file may have."),
    max_input_ratio: int = typer.Option(100, "--max-input-ratio", metavar="N",
                                        help="The most a workbook's part may unpack to per packed byte."),
    verbose: int = typer.Option(0, "--verbose", "-v", count=True, show_default=False,
                                help="More log detail on stderr: -v info, -vv debug."),
    quiet: int = typer.Option(0, "--quiet", "-q", count=True, show_default=False,
                              help="No progress or status lines (-q); errors only (-qq)."),
    log_level: LogLevel | None = typer.Option(
        None, "--log-level", case_sensitive=False, help="Log level on stderr (overrides -v and -q)."
    ),
) -> None:
    """mmgauge: exact, reproducible, fast evaluation of vision-language models."""
    from mmgauge.cli.logs import configure

    configure(verbose, quiet, log_level)
    # Commands with their own -v/-q (run) add theirs to these.
    obj = ctx.ensure_object(dict)
    obj["logging"] = (verbose, quiet, log_level)


class CommandGroup(TyperGroup):
    """A group of the table's commands (under `score` and `export`, the benchmarks' hooks' too), each loaded
    when asked."""

    #: The group's path in the table ("" for the root).
    path = ""

    def list_commands(self, ctx: Any) -> list[str]:
        names = [command.path.split()[-1] for command in commands.children(self.path)]
        if self.path in HOOKED_GROUPS:
            names += [name for name in _benchmark_commands(self.path) if name not in names]
        prefix = f"{self.path} " if self.path else ""
        for old in _aliases():  # hidden: listed so that completion finds them, as Click's groups do
            name = old.removeprefix(prefix).split()[0]
            if old.startswith(prefix) and name not in names:
                names.append(name)
        return names

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            found = _load(f"{self.path} {cmd_name}".strip())
            if found is None:
                return None
            self.commands[cmd_name] = found
        return self.commands[cmd_name]

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        # From the table, so that a listing imports no command's module (score and export ask the benchmarks).
        rows = [(command.path.split()[-1], command.help) for command in commands.children(self.path)]
        if self.path in HOOKED_GROUPS:
            listed = {name for name, _ in rows}
            names = [name for name in _benchmark_commands(self.path) if name not in listed]
            limit = formatter.width - 6 - max(len(name) for name in [*names, *listed])
            rows = [(name, _short_help(self, ctx, name, limit)) for name in names] + rows
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _short_help(group: CommandGroup, ctx: Any, name: str, limit: int) -> str:
    command = group.get_command(ctx, name)
    return "" if command is None else str(command.get_short_help_str(limit))


def _benchmark_commands(group: str) -> list[str]:
    """The benchmarks whose class names a command of `group` (its hook in `HOOKED_GROUPS`), in the
    registry's order."""
    from mmgauge.benchmarks.registry import command_hooks

    return command_hooks(HOOKED_GROUPS[group])


def _load(path: str) -> Any:
    """The Click command (Typer's) at `path`, or None where there is none."""
    table = commands.by_path()
    entry = table.get(path)
    if entry is not None:
        return _group(entry.path, entry.help) if entry.target is None else _mount(path, _function(entry))
    function = _hook(path)
    if function is not None:
        return _mount(path, function)
    # Old spellings last: the benchmarks' are on their classes, which a current path need not import.
    every = _aliases()
    new = every.get(path)
    if new is not None:
        function = _function(table[new]) if new in table else _hook(new)
        if function is None:
            return None
        return _mount(path, renamed(function, path, new), hidden=True)
    if any(old.startswith(f"{path} ") for old in every):
        return _group(path, "", hidden=True)  # a group that only holds old spellings (a benchmark's)
    return None


def _aliases() -> dict[str, str]:
    """Every old spelling, with the path it now is: the table's, and the benchmarks' `command_aliases` (read
    as `score NAME`'s hook is, without importing the benchmarks)."""
    from mmgauge.benchmarks.registry import all_benchmarks, class_attribute, hook_target

    found = commands.aliases()
    known = all_benchmarks()
    for name in sorted(known):
        if hook_target(name, "score_command", known) is not None:
            found.update(dict.fromkeys(class_attribute(name, "command_aliases", known) or (),
                                       f"score {name}"))
    return found


def _function(entry: commands.Command) -> Callable[..., Any]:
    module, _, name = (entry.target or "").partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


def _hook(path: str) -> Callable[..., Any] | None:
    """`score NAME` (`export NAME`) of a benchmark whose class names a `score_command` (`export_command`)."""
    group, _, name = path.partition(" ")
    if group not in HOOKED_GROUPS or not name or " " in name:
        return None
    from mmgauge.benchmarks.registry import hook_target
    from mmgauge.core.loading import import_target

    # The class's hook, read without importing the benchmark: only the command's own module is imported.
    target = hook_target(name, HOOKED_GROUPS[group])
    if target is None:
        return None
    function: Callable[..., Any] = import_target(target)
    return function


def _mount(path: str, function: Callable[..., Any], hidden: bool = False) -> Any:
    app = typer.Typer(rich_markup_mode=None, add_completion=False, pretty_exceptions_enable=False)
    typed = for_typer(function) if declares(function) else function
    app.command(path.split()[-1], cls=PlainArgumentsCommand, hidden=hidden)(typed)
    return typer.main.get_command(app)


def _group(path: str, help_text: str, hidden: bool = False) -> Any:
    app = typer.Typer(cls=CommandGroup, rich_markup_mode=None, name=path.split()[-1], help=help_text,
                      no_args_is_help=True, hidden=hidden, add_completion=False,
                      pretty_exceptions_enable=False)
    app.callback()(_group_callback)
    group: CommandGroup = typer.main.get_command(app)  # type: ignore[assignment]
    group.path = path
    return group


def _group_callback() -> None:
    pass


def build_app() -> typer.Typer:
    """The whole command tree; its commands are loaded as they are reached."""
    app = typer.Typer(cls=CommandGroup, rich_markup_mode=None, name="mmgauge", help=ROOT_HELP,
                      no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
    app.callback()(_root)
    return app


_mounted: typer.Typer | None = None


def mounted_app() -> typer.Typer:
    """The command tree (built once, on first use, so importing this module stays cheap)."""
    global _mounted
    if _mounted is None:
        _mounted = build_app()
    return _mounted


def renamed(command: Callable[..., Any], old: str, new: str) -> Callable[..., Any]:
    """`command` under its old spelling: the same options, with a note naming the new one first."""

    @functools.wraps(command)
    def alias(*args: Any, **kwargs: Any) -> Any:
        note = f"note: `mmgauge {old}` is now `mmgauge {new}`; the old name goes in the next release"
        sys.stderr.write(note + "\n")
        return command(*args, **kwargs)

    return alias
