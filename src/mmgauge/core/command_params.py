"""How a command declares its parameters without importing Typer or the command line: `Arg` and `Opt` in
``Annotated[T, ...]``. Here, below every other layer, so that a benchmark's `score_command` (in its own
package) declares its parameters as the command line's own commands do; `cli/params.py` reads them.
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
