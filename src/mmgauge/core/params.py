"""A command's parameters, declared without Typer: ``Annotated[T, Arg(...)]`` or ``Annotated[T, Opt(...)]``.

They live below every package that writes commands (the command line, a benchmark's own `score` command), and
`cli/params.py` turns them into Typer's when a command is mounted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Arg:
    """A positional argument; `settings` go to `typer.Argument`."""

    settings: dict[str, Any] = field(default_factory=dict)

    def __init__(self, **settings: Any) -> None:
        object.__setattr__(self, "settings", settings)


@dataclass(frozen=True)
class Opt:
    """An option named by `decls` (``"--json"``, ``"-s"``); `settings` go to `typer.Option`."""

    decls: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def __init__(self, *decls: str, **settings: Any) -> None:
        object.__setattr__(self, "decls", decls)
        object.__setattr__(self, "settings", settings)
