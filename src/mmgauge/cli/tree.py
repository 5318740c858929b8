"""The `mmgauge` command tree in Typer: every command, its help page and its parsing (`main` is the entry)."""

from __future__ import annotations

import copy
import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import typer
from typer.models import CommandInfo

from mmgauge.cli.help_format import use_plain_arguments
from mmgauge.cli.log_level import LogLevel
from mmgauge.cli.params import for_typer
from mmgauge.core.version import __version__

ROOT_HELP = ("Evaluate multimodal LLMs exactly as the benchmark papers define it: MME, MMBench, M3GIA, "
             "General-Level.")
GROUP_HELP = {
    "score": "Score existing answers without any model.",
    "export": "Write runs' answers or scores in other formats.",
    "cache": "Inspect or clear the response cache.",
}


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


@dataclass
class _Tree:
    """The root command and its groups, before any command is registered."""

    app: typer.Typer
    groups: dict[str, typer.Typer]

    @classmethod
    def new(cls) -> _Tree:
        app = typer.Typer(rich_markup_mode=None, name="mmgauge", help=ROOT_HELP, no_args_is_help=True,
                          add_completion=False, pretty_exceptions_enable=False)
        app.callback()(_root)
        groups = {name: typer.Typer(rich_markup_mode=None, help=text, no_args_is_help=True)
                  for name, text in GROUP_HELP.items()}
        for name, group in groups.items():
            app.add_typer(group, name=name)
        return cls(app, groups)


def _module_register(module: str) -> Callable[[_Tree], None]:
    """`register(app)` of a module defining top-level commands."""
    return lambda tree: importlib.import_module(module).register(tree.app)


def _bench_commands(module: str) -> Callable[[_Tree], None]:
    """`register(score_app, export_app)` of a module defining a benchmark's score and export commands."""
    return lambda tree: importlib.import_module(module).register(tree.groups["score"], tree.groups["export"])


def _cache(tree: _Tree) -> None:
    importlib.import_module("mmgauge.cli.cache").register(tree.groups["cache"])


def _cfa(tree: _Tree) -> None:
    tree.app.add_typer(importlib.import_module("mmgauge.cli.cfa").app, name="cfa")


def _top_command(module: str) -> Callable[[_Tree], None]:
    """The commands of a module's single-command Typer `app`, mounted at the top level."""

    def mount(tree: _Tree) -> None:
        for info in importlib.import_module(module).app.registered_commands:
            tree.app.registered_commands.append(info)

    return mount


def _m3gia(tree: _Tree) -> None:
    command = for_typer(importlib.import_module("mmgauge.cli.m3gia").gia_command)
    tree.groups["score"].command("m3gia")(command)
    old = typer.Typer(rich_markup_mode=None, hidden=True, no_args_is_help=True)
    old.command("gia")(renamed(command, "m3gia gia", "score m3gia"))
    tree.app.add_typer(old, name="m3gia", hidden=True)


def _level(tree: _Tree) -> None:
    command = for_typer(importlib.import_module("mmgauge.cli.level").level_command)
    tree.groups["score"].command("level")(command)
    tree.app.command("level", hidden=True)(renamed(command, "level", "score level"))


#: Who registers each command, by its path (`score mme`, `run`), in the order of the full tree. A command
#: typed on the command line mounts only its own part (one module imported); anything else (`--help`, a
#: group's help, a mistyped name) mounts the whole tree.
PARTS: dict[str, Callable[[_Tree], None]] = {
    "run": _module_register("mmgauge.cli.run"),
    "list": _module_register("mmgauge.cli.listing"),
    "sample": _module_register("mmgauge.cli.sample"),
    "cache": _cache,
    "score mme": _bench_commands("mmgauge.cli.mme"),
    "score mmbench": _bench_commands("mmgauge.cli.mmbench"),
    "export table": _bench_commands("mmgauge.cli.export_table"),
    "cfa": _cfa,
    "report": _top_command("mmgauge.cli.report"),
    "compare": _top_command("mmgauge.cli.compare"),
    "audit-judge": _top_command("mmgauge.cli.audit"),
    "score m3gia": _m3gia,
    "score level": _level,
    "schema": _module_register("mmgauge.cli.schema"),
    "completion": _module_register("mmgauge.cli.completion"),
}
#: Paths served by the same part as another one.
PART_ALIASES: dict[str, str] = {"export mme": "score mme", "export mmbench": "score mmbench",
                                "m3gia": "score m3gia", "level": "score level"}


def build_app(args: list[str] | None = None) -> typer.Typer:
    """The command tree for `args`: only the part that serves the command they name, or the whole tree.

    The whole tree for `args` (a help page or an unknown command: nothing runs) is a listing: its commands
    keep their names and help but not their parameters, which Typer would otherwise resolve for every
    command (half the time of `mmgauge --help`). Without `args` it is the real tree.
    """
    tree = _Tree.new()
    part = _part_for(args) if args is not None else None
    for register in [part] if part is not None else PARTS.values():
        register(tree)
    if args is not None and part is None:
        _list_only(tree.app)
    use_plain_arguments(tree.app)
    return tree.app


def _list_only(app: typer.Typer) -> None:
    """Each command of `app` and of its groups as a stand-in without parameters (same name and help).

    Commands and groups are replaced by changed copies: modules' own Typer apps (`cfa`, `report`, ...) are
    mounted as they are and must stay real for the next tree built in this process.
    """
    app.registered_commands = [_listed(info) for info in app.registered_commands]
    groups = []
    for group in app.registered_groups:
        if group.typer_instance is not None:
            instance = copy.copy(group.typer_instance)
            _list_only(instance)
            group = copy.copy(group)
            group.typer_instance = instance
        groups.append(group)
    app.registered_groups = groups


def _listed(info: CommandInfo) -> CommandInfo:
    listed = copy.copy(info)
    if info.callback is not None:
        listed.callback = _stand_in(info.callback)
    return listed


def _stand_in(command: Callable[..., Any]) -> Callable[[], None]:
    """A parameterless function named and documented like `command`, for a help listing."""

    def listed() -> None:
        # A listing only shows help; a command that runs is always mounted for real (`_part_for`).
        raise RuntimeError(f"{command.__name__} was mounted for a help listing only")

    listed.__name__ = listed.__qualname__ = command.__name__
    listed.__doc__ = command.__doc__
    listed.__module__ = command.__module__
    return listed


def _part_for(args: list[str]) -> Callable[[_Tree], None] | None:
    words = [number for number, arg in enumerate(args) if not arg.startswith("-")]  # root options are flags
    if not words or "--help" in args[: words[0]]:
        return None  # no command, or `mmgauge --help ...`: the root's help
    path = [args[number] for number in words[:2]]
    for name in (" ".join(path), path[0]):
        name = PART_ALIASES.get(name, name)
        if name in PARTS:
            return PARTS[name]
    if len(path) == 2 and path[0] == "score":
        return _benchmark_score(path[1])
    return None


def _benchmark_score(name: str) -> Callable[[_Tree], None] | None:
    """`score NAME` of a benchmark whose class names a `score_command` (mounted only when typed: listing
    them in `--help` would import every benchmark's class)."""
    from mmgauge.benchmarks.registry import known_class

    cls = known_class(name)
    if cls is None or cls.score_command is None:
        return None
    command = cls.hook("score_command")
    return lambda tree: tree.groups["score"].command(name)(command)


_mounted: typer.Typer | None = None


def mounted_app() -> typer.Typer:
    """The whole command tree (built once, on first use, so importing this module stays cheap)."""
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
