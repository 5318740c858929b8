"""The `mmgauge` command. Every error a user can cause ends in one line on stderr and exit status 2; a reader
that stops early (`| head`) ends it quietly with status 1.

Every command line, help and usage errors included, is read by one parser: the Typer tree (`tree.py`), which
imports only the module of the command it runs.
"""

from __future__ import annotations

import gc
import os
import sys

from mmgauge.cli.signals import TERMINATED_STATUS, TerminateAsInterrupt
from mmgauge.core.errors import UserError
from mmgauge.core.secrets import scrub
from mmgauge.datasources.limits import input_limits

INTERRUPTED_STATUS = 130
#: A reader that went away: Python's advice, and what Click (the commands behind Typer) exits with then.
CLOSED_OUTPUT_STATUS = 1
INTERRUPTED = "interrupted: every finished sample is kept in the run folder; run the same command to resume"
TERMINATED = "terminated (SIGTERM): " + INTERRUPTED.removeprefix("interrupted: ")


#: What a collection of the oldest generation never runs past (`gc.set_threshold`'s third value is a C int).
NO_FULL_COLLECTIONS = 2**31 - 1


def collector_policy() -> None:
    """The garbage collector's settings for a command's process; only the console script applies them.

    A command builds millions of objects that live until it ends (datasets, plans, records, report rows),
    none in a reference cycle, and every full collection walks all of them: on 20,000 toy samples through
    the runner, 8 full passes took 3.5 s, the longest 1.2 s with requests waiting. So what the imports made
    is frozen (out of every pass), and the oldest generation is never collected while the command runs. The
    young collections go on as usual: they free the cycles that asyncio and aiohttp make and drop at once. A
    cycle that becomes garbage only after two young passes stays until the process exits, as frozen objects
    did before. A library call never does this: the collector is the whole process's, and its caller's.
    """
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, NO_FULL_COLLECTIONS)


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    instruction = os.environ.get("_MMGAUGE_COMPLETE")
    if instruction:  # a TAB in a shell that sourced `mmgauge completion SHELL` (Click's protocol)
        from mmgauge.cli.completion import complete

        sys.exit(complete(instruction))
    if argv is None:  # the console script: this process is the command's (tests call main(args) in theirs)
        collector_policy()
    debug = "--debug" in args
    terminate = TerminateAsInterrupt()
    try:
        args, limits = _input_limits(args)
        with terminate, input_limits(**limits):
            code = _run_tree(args)
            sys.stdout.flush()  # here, not at exit, so that a reader gone away is met below
    except KeyboardInterrupt:
        code = INTERRUPTED_STATUS
    except UserError as problem:
        if debug:
            raise
        _say(f"error: {problem}")
        code = 2
    except OSError as problem:
        if isinstance(problem, BrokenPipeError) and _stdout_reader_gone():
            # `mmgauge ... | head`: the reader has what it wanted. Nothing more can reach stdout, so it goes
            # to /dev/null (else the interpreter's own flush at exit fails again). Any other broken pipe is
            # an error like the rest.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            code = CLOSED_OUTPUT_STATUS
        elif debug:
            raise
        else:
            where = f"{problem.filename}: " if getattr(problem, "filename", None) else ""
            _say(f"error: {where}{problem.strerror or problem}")
            code = 2
    if code == INTERRUPTED_STATUS:
        # Typer reports a Ctrl-C (or a SIGTERM turned into one) as this status, having said nothing.
        _say(TERMINATED if terminate.received else INTERRUPTED)
        code = TERMINATED_STATUS if terminate.received else INTERRUPTED_STATUS
    if argv is None:
        # The process ends here (this is the console script). What is alive now is freed as the interpreter
        # exits; frozen, it is left out of the interpreter's last cyclic collection, which otherwise walks
        # every object of every module imported (a tenth of a small `mmgauge score`).
        gc.freeze()
    sys.exit(code)


def _input_limits(args: list[str]) -> tuple[list[str], dict[str, int]]:
    """`args` without the input caps (`--max-input-size 8G`, ...), and the caps they give.

    The caps hold for whatever file any command reads, so they are taken out wherever they stand (before
    a `--`) and never reach a command's own parameters."""
    from mmgauge.datasources.limits import OPTIONS, parse_limit

    rest: list[str] = []
    limits: dict[str, int] = {}
    words = iter(args)
    for word in words:
        if word == "--":
            rest += [word, *words]
            break
        name, equals, value = word.partition("=")
        if name not in OPTIONS:
            rest.append(word)
            continue
        if not equals:
            value = next(words, "")
            if not value:
                raise UserError("needs a value", field=name)
        limits[OPTIONS[name][0]] = parse_limit(name, value)
    return rest, limits


def _stdout_reader_gone() -> bool:
    """Whether stdout is a pipe whose reading end has been closed (poll reports an error on the writing
    end)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no real descriptor (a captured stdout) or no poll here
        return False


def _run_tree(args: list[str]) -> int:
    """Run `args` through the Typer tree; its own exits and usage errors become exit codes here."""
    import typer

    from mmgauge.cli.tree import build_app

    command = typer.main.get_command(build_app())
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
    except typer.Abort:
        code = INTERRUPTED_STATUS  # said by `main`
    return code if isinstance(code, int) else 0


def _say(line: str) -> None:
    """One line on stderr, as typed (plain text: no markup or emoji codes read into it), secrets scrubbed."""
    sys.stderr.write(scrub(line) + "\n")
    sys.stderr.flush()


if __name__ == "__main__":
    main()
