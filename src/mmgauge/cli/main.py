"""The `mmgauge` command. Every error a user can cause ends in one line on stderr and exit status 2."""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any

import typer

from mmgauge import __version__
from mmgauge.core.errors import UserError

app = typer.Typer(rich_markup_mode=None,
    name="mmgauge",
    help="Evaluate multimodal LLMs exactly as the benchmark papers define it: MME, MMBench, M3GIA, "
    "General-Level.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
score_app = typer.Typer(
    rich_markup_mode=None, help="Score existing answers without any model.", no_args_is_help=True
)
export_app = typer.Typer(
    rich_markup_mode=None, help="Write a run's answers in another tool's format.", no_args_is_help=True
)
cache_app = typer.Typer(
    rich_markup_mode=None, help="Inspect or clear the response cache.", no_args_is_help=True
)
app.add_typer(score_app, name="score")
app.add_typer(export_app, name="export")
app.add_typer(cache_app, name="cache")

#: Modules with `register(score_app, export_app)` for per-benchmark score/export commands.
BENCH_COMMAND_MODULES: tuple[str, ...] = ("mmgauge.cli.mme", "mmgauge.cli.mmbench")
#: Modules with a Typer `app` mounted as a command group: (module, group name).
GROUP_MODULES: tuple[tuple[str, str], ...] = (("mmgauge.cli.cfa", "cfa"),)
#: Modules with a single-command Typer `app` mounted at the top level.
TOP_COMMAND_MODULES: tuple[str, ...] = ("mmgauge.cli.report",)
#: `score` commands defined elsewhere: (module, function, name under `score`, its old spelling).
SCORE_COMMANDS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("mmgauge.cli.m3gia", "gia_command", "m3gia", ("m3gia", "gia")),
    ("mmgauge.cli.level", "level_command", "level", ("level",)),
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mmgauge {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
    debug: bool = typer.Option(False, "--debug", help="Show full tracebacks for errors."),
) -> None:
    """mmgauge: exact, reproducible, fast evaluation of vision-language models."""


_mounted = False


def mounted_app() -> typer.Typer:
    """The whole command tree (mounting is done once, on first use, so importing this module stays cheap)."""
    global _mounted
    if not _mounted:
        _mount()
        _mounted = True
    return app


def _mount() -> None:
    from mmgauge.cli import cache, listing, run, sample

    run.register(app)
    listing.register(app)
    sample.register(app)
    cache.register(cache_app)
    for name in BENCH_COMMAND_MODULES:
        importlib.import_module(name).register(score_app, export_app)
    for module_name, group_name in GROUP_MODULES:
        app.add_typer(importlib.import_module(module_name).app, name=group_name)
    for name in TOP_COMMAND_MODULES:
        sub = importlib.import_module(name).app
        for info in sub.registered_commands:
            app.registered_commands.append(info)
    old_groups: dict[str, typer.Typer] = {}
    for module, function, name, old in SCORE_COMMANDS:
        command = getattr(importlib.import_module(module), function)
        score_app.command(name)(command)
        alias = renamed(command, " ".join(old), f"score {name}")
        if len(old) == 1:
            app.command(old[0], hidden=True)(alias)
        else:
            old_group = old_groups.setdefault(old[0], typer.Typer(
                rich_markup_mode=None, hidden=True, no_args_is_help=True)
            )
            old_group.command(old[1])(alias)
    for old_name, old_group in old_groups.items():
        app.add_typer(old_group, name=old_name, hidden=True)


def renamed(command: Callable[..., Any], old: str, new: str) -> Callable[..., Any]:
    """`command` under its old spelling: the same options, with a note naming the new one first."""

    @functools.wraps(command)
    def alias(*args: Any, **kwargs: Any) -> Any:
        note = f"note: `mmgauge {old}` is now `mmgauge {new}`; the old name goes in the next release"
        sys.stderr.write(note + "\n")
        return command(*args, **kwargs)

    return alias


def _say(line: str) -> None:
    """One line on stderr, as typed (plain text: no markup or emoji codes read into it)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    command = typer.main.get_command(mounted_app())
    try:
        # The exact invocation reaches commands as ctx.obj, so a run's manifest records what was typed.
        code = command.main(args=args, prog_name="mmgauge", standalone_mode=False, obj={"argv": args})
    except typer.Exit as stop:
        code = stop.exit_code
    except typer.TyperException as problem:
        # Usage errors (bad option values) carry exit code 2; one line is enough, `--help` has the rest.
        formatter = getattr(problem, "format_message", None)
        message = formatter() if callable(formatter) else str(problem)
        _say(f"error: {message}")
        code = int(getattr(problem, "exit_code", 2))
    except (typer.Abort, KeyboardInterrupt):
        _say("interrupted: every finished sample is kept in the run folder; run the same command to resume")
        code = 130
    except UserError as problem:
        if debug:
            raise
        _say(f"error: {problem}")
        code = 2
    except OSError as problem:
        if debug:
            raise
        where = f"{problem.filename}: " if getattr(problem, "filename", None) else ""
        _say(f"error: {where}{problem.strerror or problem}")
        code = 2
    sys.exit(code if isinstance(code, int) else 0)
