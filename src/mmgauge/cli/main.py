"""The `mmgauge` command. Every error a user can cause ends in one line on stderr and exit status 2; a reader
that stops early (`| head`) ends it quietly with status 1.

Every command line, help and usage errors included, is read by one parser: the Click tree (`tree.py`), which
imports only the module of the command it runs.
"""

from __future__ import annotations

import gc
import os
import sys

from mmgauge.cli.signals import TERMINATED_STATUS, TerminateAsInterrupt
from mmgauge.core.errors import UserError
from mmgauge.core.secrets import scrub

INTERRUPTED_STATUS = 130
#: A reader that went away: Python's advice, and what Click exits with then.
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
        with terminate:
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
        # Click reports a Ctrl-C (or a SIGTERM turned into one) as this status, having said nothing.
        _say(TERMINATED if terminate.received else INTERRUPTED)
        code = TERMINATED_STATUS if terminate.received else INTERRUPTED_STATUS
    if argv is None:
        # The process ends here (this is the console script). What is alive now is freed as the interpreter
        # exits; frozen, it is left out of the interpreter's last cyclic collection, which otherwise walks
        # every object of every module imported (a tenth of a small `mmgauge score`).
        gc.freeze()
    sys.exit(code)


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
    """Run `args` through the Click tree; its own exits and usage errors become exit codes here.

    The tree is invoked directly rather than through Click's `main`, which would write a blank line at a
    Ctrl-C and end the process itself at a closed pipe: `main` above decides both."""
    import click

    from mmgauge.cli.tree import build_app

    command = build_app()
    try:
        # The exact invocation reaches commands as ctx.obj, so a run's manifest records what was typed.
        with command.make_context("mmgauge", list(args), obj={"argv": args}) as ctx:
            code = command.invoke(ctx)
        return code if isinstance(code, int) else 0
    except click.exceptions.Exit as stop:
        return stop.exit_code
    except click.ClickException as problem:
        # Usage errors (bad option values) carry exit code 2; one line is enough, `--help` has the rest.
        _say(f"error: {problem.format_message()}")
        return problem.exit_code
    except (click.Abort, EOFError):
        return INTERRUPTED_STATUS  # said by `main`


def _say(line: str) -> None:
    """One line on stderr, as typed (plain text: no markup or emoji codes read into it), secrets scrubbed."""
    sys.stderr.write(scrub(line) + "\n")
    sys.stderr.flush()


if __name__ == "__main__":
    main()
