"""A command's parameters declared without importing Typer (``Annotated[T, Arg(...)]``, ``Annotated[T,
Opt("--name", ...)]``): here, at the bottom, so that a benchmark's `score_command` declares its options as the
command line's own commands do; `cli/params.py` turns them into Typer's when the command is mounted."""

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
