"""Shell completion for bash, zsh and fish: `mmgauge completion SHELL` prints the script, which then calls
`mmgauge` back with `_MMGAUGE_COMPLETE` set at every TAB (Click's protocol; `main` hands those calls here).

Each TAB builds only the part of the command tree the words typed so far name (`tree.build_app`), as a
command does: completing `mmgauge run --mo` loads the `run` command alone, `mmgauge ru` a listing of names.
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


def _shell_class(shell: str) -> type:
    from typer._click.shell_completion import get_completion_class
    from typer._completion_classes import completion_init

    completion_init()  # registers Typer's bash, zsh and fish classes with the click it vendors
    found = get_completion_class(shell)
    if found is None:
        raise ValueError(f"no completion for the shell {shell!r}")
    return found


def completion_script(shell: Shell | str) -> str:
    """The script that gives `mmgauge` completion in `shell`, to source from its start-up file."""
    name = shell.value if isinstance(shell, Shell) else shell
    from typer.core import TyperCommand

    command = TyperCommand(PROG)  # the script reads no command: each TAB asks `mmgauge` itself
    script: str = _shell_class(name)(command, {}, PROG, COMPLETE_VAR).source()
    return script


def complete(instruction: str) -> int:
    """Answer one completion request: `instruction` is `SHELL_complete` or `SHELL_source` (Click's order), or
    `complete_SHELL`/`source_SHELL` (Typer's, which its scripts send). Prints the answer; the exit status."""
    from mmgauge.cli.tree import build_app

    first, _, second = instruction.partition("_")
    shells = {shell.value for shell in Shell}
    shell, action = (first, second) if first in shells else (second, first)
    if shell not in shells or action not in ("complete", "source"):
        typer.echo(f"error: unknown completion request {instruction!r}; use {{bash,zsh,fish}}_complete",
                   err=True)
        return 1
    if action == "source":
        typer.echo(completion_script(shell))
        return 0
    cls = _shell_class(shell)
    args, _ = cls(None, {}, PROG, COMPLETE_VAR).get_completion_args()
    command = typer.main.get_command(build_app(list(args)))
    typer.echo(cls(command, {}, PROG, COMPLETE_VAR).complete())
    return 0


def register(app: typer.Typer) -> None:
    @app.command("completion")
    def completion(shell: Shell = typer.Argument(..., help="bash, zsh or fish.")) -> None:
        """Print the shell completion script. bash: eval "$(mmgauge completion bash)" in ~/.bashrc; zsh: the
        same in ~/.zshrc; fish: mmgauge completion fish > ~/.config/fish/completions/mmgauge.fish."""
        typer.echo(completion_script(shell))
