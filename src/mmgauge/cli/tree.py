"""The `mmgauge` command tree in Click, built from the command table (`commands.py`) as it is walked: a group
lists its commands from the table, and only a command that is reached (run, its help, a TAB) has its module
imported and its parameters read (`params.command_for`). `main` is the entry.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Annotated, Any

import click

from mmgauge.cli import commands
from mmgauge.cli.log_level import LogLevel
from mmgauge.cli.params import ReleasesOnBadArgs, callback_for, command_for, limit_options
from mmgauge.core.params import Opt
from mmgauge.core.version import __version__

#: The groups whose `<group> NAME` commands a benchmark's class names, and the hook that names them.
HOOKED_GROUPS = {"score": "score_command", "export": "export_command"}
ROOT_HELP = ("Evaluate multimodal LLMs exactly as the benchmark papers define it (`mmgauge list` shows the "
             "benchmarks and backends).")


def _version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"mmgauge {__version__}")
        ctx.exit()


def _root(
    version: Annotated[bool, Opt("--version", callback=_version, is_eager=True, expose_value=False,
                                 help="Print the version.")] = False,
    # Read by `main` before the tree (a traceback is for any error); here for the help.
    debug: Annotated[bool, Opt("--debug", help="Show full tracebacks for errors.")] = False,
    verbose: Annotated[int, Opt("--verbose", "-v", count=True, show_default=False,
                                help="More log detail on stderr: -v info, -vv debug.")] = 0,
    quiet: Annotated[int, Opt("--quiet", "-q", count=True, show_default=False,
                              help="No progress, status or run summaries (-q); errors only (-qq).")] = 0,
    log_level: Annotated[LogLevel | None, Opt("--log-level", case_sensitive=False,
                                              help="Log level on stderr (overrides -v and -q).")] = None,
) -> None:
    """mmgauge: exact, reproducible, fast evaluation of vision-language models."""
    from mmgauge.cli.logs import configure

    configure(verbose, quiet, log_level)
    # Commands with their own -v/-q (run) add theirs to these.
    obj = click.get_current_context().ensure_object(dict)
    obj["logging"] = (verbose, quiet, log_level)


class CommandGroup(ReleasesOnBadArgs, click.Group):
    """A group of the table's commands (under `score` and `export`, the benchmarks' hooks' too), each loaded
    when asked."""

    def __init__(self, path: str, **attrs: Any) -> None:
        # Every group's own options are the input caps (shown on the root's help only), as on every command.
        params = attrs.pop("params", None) or limit_options(hidden=True)
        super().__init__(path.split()[-1] if path else "mmgauge", params=params, no_args_is_help=True,
                         **attrs)
        #: The group's path in the table ("" for the root).
        self.path = path

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

    def get_command(self, ctx: Any, cmd_name: str) -> click.Command | None:
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
    """The Click command at `path`, or None where there is none."""
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


def _mount(path: str, function: Callable[..., Any], hidden: bool = False) -> click.Command:
    return command_for(path.split()[-1], function, hidden=hidden)


def _group(path: str, help_text: str, hidden: bool = False) -> CommandGroup:
    return CommandGroup(path, help=help_text, hidden=hidden)


def build_app() -> CommandGroup:
    """The whole command tree; its commands are loaded as they are reached."""
    callback, params = callback_for(_root)
    # The caps after --version and --debug, where the help has always listed them.
    return CommandGroup("", help=ROOT_HELP, callback=callback,
                        params=[*params[:2], *limit_options(), *params[2:]])


_mounted: CommandGroup | None = None


def mounted_app() -> CommandGroup:
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
