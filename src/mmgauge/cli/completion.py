"""Shell completion for bash, zsh and fish: `mmgauge completion SHELL` prints the script, which then calls
`mmgauge` back with `_MMGAUGE_COMPLETE` set at every TAB (Click's protocol and shell classes; `main` hands
those calls here).

Each TAB loads only the commands the words typed so far reach (`tree.py`), as a command line does: completing
`mmgauge run --mo` loads the `run` command alone.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

from mmgauge.core.params import Arg

PROG = "mmgauge"
COMPLETE_VAR = "_MMGAUGE_COMPLETE"


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def print_script(shell: Shell | str) -> int:
    """Print the script that gives `mmgauge` completion in `shell`, to source from its start-up file (Click's
    answer to `SHELL_source`); the exit status."""
    import click
    from click.shell_completion import shell_complete

    name = shell.value if isinstance(shell, Shell) else shell
    command = click.Command(PROG)  # the script reads no command: each TAB asks `mmgauge` itself
    return shell_complete(command, {}, PROG, COMPLETE_VAR, f"{name}_source")


def complete(instruction: str) -> int:
    """Answer one completion request: `instruction` is `SHELL_complete` or `SHELL_source` (Click's order), or
    `complete_SHELL`/`source_SHELL` (the order of the scripts of earlier releases). Prints the answer; the
    exit status."""
    from click.shell_completion import shell_complete

    from mmgauge.cli.tree import build_app

    first, _, second = instruction.partition("_")
    shells = {shell.value for shell in Shell}
    shell, action = (first, second) if first in shells else (second, first)
    if shell not in shells or action not in ("complete", "source"):
        sys.stderr.write(f"error: unknown completion request {instruction!r}; "
                         "use {bash,zsh,fish}_complete\n")
        return 1
    if action == "source":
        return print_script(shell)
    return shell_complete(build_app(), {}, PROG, COMPLETE_VAR, f"{shell}_complete")


def completion(shell: Annotated[Shell, Arg(help="bash, zsh or fish.")]) -> None:
    """Print the shell completion script. bash: eval "$(mmgauge completion bash)" in ~/.bashrc; zsh: the
    same in ~/.zshrc; fish: mmgauge completion fish > ~/.config/fish/completions/mmgauge.fish."""
    print_script(shell)
