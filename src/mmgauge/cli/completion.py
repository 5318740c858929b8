"""Shell completion for bash, zsh and fish: `mmgauge completion SHELL` prints the script, which then calls
`mmgauge` back with `_MMGAUGE_COMPLETE` set at every TAB (Click's protocol; `main` hands those calls here).

Each TAB loads only the commands the words typed so far reach (`tree.py`), as a command line does: completing
`mmgauge run --mo` loads the `run` command alone.
"""

from __future__ import annotations

from enum import Enum

import typer

PROG = "mmgauge"
COMPLETE_VAR = "_MMGAUGE_COMPLETE"


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def _typer_shells() -> None:
    """Have Typer's bash, zsh and fish classes answer: Typer registers them (with the Click it vendors)
    only while it builds a command with completion options, and this is its public function doing it."""
    from typer.completion import get_completion_inspect_parameters

    get_completion_inspect_parameters()


def print_script(shell: Shell | str) -> int:
    """Print the script that gives `mmgauge` completion in `shell`, to source from its start-up file (Typer's
    own answer to `source_SHELL`); the exit status."""
    from typer.completion import shell_complete
    from typer.core import TyperCommand

    name = shell.value if isinstance(shell, Shell) else shell
    _typer_shells()
    command = TyperCommand(PROG)  # the script reads no command: each TAB asks `mmgauge` itself
    return shell_complete(command, {}, PROG, COMPLETE_VAR, f"source_{name}")


def complete(instruction: str) -> int:
    """Answer one completion request: `instruction` is `SHELL_complete` or `SHELL_source` (Click's order), or
    `complete_SHELL`/`source_SHELL` (Typer's, which its scripts send). Prints the answer; the exit status."""
    from typer.completion import shell_complete

    from mmgauge.cli.tree import build_app

    first, _, second = instruction.partition("_")
    shells = {shell.value for shell in Shell}
    shell, action = (first, second) if first in shells else (second, first)
    if shell not in shells or action not in ("complete", "source"):
        typer.echo(f"error: unknown completion request {instruction!r}; use {{bash,zsh,fish}}_complete",
                   err=True)
        return 1
    if action == "source":
        return print_script(shell)
    _typer_shells()
    command = typer.main.get_command(build_app())
    return shell_complete(command, {}, PROG, COMPLETE_VAR, f"complete_{shell}")


def completion(shell: Shell = typer.Argument(..., help="bash, zsh or fish.")) -> None:
    """Print the shell completion script. bash: eval "$(mmgauge completion bash)" in ~/.bashrc; zsh: the
    same in ~/.zshrc; fish: mmgauge completion fish > ~/.config/fish/completions/mmgauge.fish."""
    print_script(shell)
