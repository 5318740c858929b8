"""A command's parameters, declared without importing Click: ``Annotated[T, Arg(...)]`` or
``Annotated[T, Opt(...)]``.

They live below every package that writes commands (the command line, a benchmark's own `score` command), and
`cli/params.py` turns them into Click's when a command is mounted. `settings` are Click's keyword names
(`help`, `metavar`, `show_default`, `hidden`, `count`, `is_eager`, `callback`, ...), plus `min`/`max`/`clamp`
for a number's range, `exists`/`file_okay`/`dir_okay`/`readable`/`writable`/`resolve_path` for a path and
`case_sensitive` for an Enum's choices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Arg:
    """A positional argument, read as its annotation says (``list[T]``: one or more)."""

    settings: dict[str, Any] = field(default_factory=dict)

    def __init__(self, **settings: Any) -> None:
        object.__setattr__(self, "settings", settings)


@dataclass(frozen=True)
class Opt:
    """An option named by `decls` (``"--json"``, ``"-s"``, ``"--images/--no-images"``)."""

    decls: tuple[str, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    def __init__(self, *decls: str, **settings: Any) -> None:
        object.__setattr__(self, "decls", decls)
        object.__setattr__(self, "settings", settings)
