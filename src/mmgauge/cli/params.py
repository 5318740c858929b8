"""Command-line parameters declared without importing Typer, so that a plain command can run without it.

A command declares each parameter as ``Annotated[T, Arg(...)]`` or ``Annotated[T, Opt("--name", ...)]``.
`for_typer` turns the declarations into Typer's when the command tree is built (help pages, error messages,
anything unusual). `parse_plain` reads an ordinary invocation straight from the same declarations: scoring a
file then never imports Typer or builds its tree, which is a third of the start-up of `mmgauge score`.

`parse_plain` reads only what it can read exactly as Typer does and gives up (None) on everything else: help,
unknown or repeated options, a missing value or argument, a value that starts with a dash, a number or choice
written any other way than plainly, ``--``. Typer then reads the command line and says what is wrong, so the
answers and the error messages of a command do not depend on which of the two read it.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Final, Union

#: Typer settings that only change how help looks; any other makes `parse_plain` leave the command to Typer.
_COSMETIC: Final = frozenset({"help", "hidden", "metavar", "show_default", "rich_help_panel"})
_INTEGER: Final = re.compile(r"[0-9]+")
_DECIMAL: Final = re.compile(r"[0-9]+(\.[0-9]+)?")


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


@dataclass(frozen=True)
class Declared:
    """One parameter of a command: its name, its type without `None`, whether it may be None, its default."""

    name: str
    kind: Arg | Opt
    type: Any
    optional: bool
    default: Any

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


def declared(command: Callable[..., Any]) -> list[Declared]:
    """The parameters of `command`, in order, as its annotations declare them."""
    hints = typing.get_type_hints(command, include_extras=True)
    found = []
    for name, parameter in inspect.signature(command).parameters.items():
        hint = hints[name]
        if typing.get_origin(hint) is not typing.Annotated:
            raise TypeError(f"{command.__name__}: parameter {name} is not declared with Arg or Opt")
        base, *extras = typing.get_args(hint)
        kinds = [extra for extra in extras if isinstance(extra, Arg | Opt)]
        if len(kinds) != 1:
            raise TypeError(f"{command.__name__}: parameter {name} needs exactly one Arg or Opt")
        members = typing.get_args(base) if typing.get_origin(base) in (Union, types.UnionType) else ()
        optional = type(None) in members
        if optional:
            rest = [member for member in members if member is not type(None)]
            base = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007 (built at run time)
        found.append(Declared(name, kinds[0], base, optional, parameter.default))
    return found


def for_typer(command: Callable[..., Any]) -> Callable[..., Any]:
    """`command` as Typer reads a command: the same function, with Typer's Argument and Option as defaults."""
    import typer

    parameters = []
    annotations: dict[str, Any] = {}
    for item in declared(command):
        default = ... if item.required else item.default
        if isinstance(item.kind, Arg):
            info = typer.Argument(default, **item.kind.settings)
        else:
            info = typer.Option(default, *item.kind.decls, **item.kind.settings)
        annotation = item.type | None if item.optional else item.type
        annotations[item.name] = annotation
        parameters.append(inspect.Parameter(item.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=info,
                                            annotation=annotation))

    @functools.wraps(command)
    def typer_command(**values: Any) -> Any:
        return command(**values)

    typer_command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    typer_command.__annotations__ = annotations
    return typer_command


def parse_plain(command: Callable[..., Any], args: Sequence[str]) -> dict[str, Any] | None:
    """The values Typer would pass `command` for `args`, or None where Typer should read them itself."""
    parameters = declared(command)
    if not all(_plain(item) for item in parameters):
        return None
    options = {decl: item for item in parameters if isinstance(item.kind, Opt) for decl in item.kind.decls}
    values: dict[str, Any] = {}
    words: list[str] = []
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if not word.startswith("-") or word == "-":
            words.append(word)
            continue
        name, equals, inline = word.partition("=")
        item = options.get(name)
        if item is None or (item.name in values and not _is_list(item.type)):
            return None  # --help, --, an unknown or repeated option: Typer's to read (or refuse)
        if item.type is bool:
            if equals:
                return None
            values[item.name] = True
            continue
        if not equals:
            if not rest or rest[0].startswith("-"):
                return None
            inline = rest.pop(0)
        value = _value(item.type, inline)
        if value is None:
            return None
        if _is_list(item.type):
            values.setdefault(item.name, []).extend(value)
        else:
            values[item.name] = value
    if not _place_arguments([item for item in parameters if isinstance(item.kind, Arg)], words, values):
        return None
    for item in parameters:
        if item.name not in values:
            if item.required:
                return None
            values[item.name] = item.default
    return values


def _place_arguments(arguments: list[Declared], words: list[str], values: dict[str, Any]) -> bool:
    """Give the positional `words` to `arguments` in order (a list argument takes all that are left)."""
    for number, item in enumerate(arguments):
        if _is_list(item.type):
            if number != len(arguments) - 1 or not words:
                return False
            found = [_value(item.type, word) for word in words]
            if any(value is None for value in found):
                return False
            values[item.name] = [one for value in found if value is not None for one in value]
            words = []
        elif words:
            value = _value(item.type, words.pop(0))
            if value is None:
                return False
            values[item.name] = value
    return not words


def _plain(item: Declared) -> bool:
    """Whether `parse_plain` reads this parameter as Typer does: a type it knows, only cosmetic settings,
    flags that are off unless given."""
    if set(item.kind.settings) - _COSMETIC:
        return False
    decls = item.kind.decls if isinstance(item.kind, Opt) else ()
    if any("/" in decl or not decl.startswith("-") for decl in decls):
        return False
    if item.type is bool:
        return isinstance(item.kind, Opt) and item.default is False
    inner = typing.get_args(item.type)[0] if _is_list(item.type) else item.type
    return inner in (str, int, float, Path) or (isinstance(inner, type) and issubclass(inner, Enum))


def _is_list(kind: Any) -> bool:
    return typing.get_origin(kind) is list


def _value(kind: Any, text: str) -> Any:
    """`text` as a value of `kind` (a list of one for list types), or None unless plainly written."""
    if _is_list(kind):
        one = _value(typing.get_args(kind)[0], text)
        return None if one is None else [one]
    if kind is str:
        return text
    if kind is Path:
        # Typer refuses a path that exists but cannot be read, with its own message.
        readable = not os.path.exists(text) or os.access(text, os.R_OK)
        return Path(text) if text and readable else None
    if kind is int:
        return int(text) if _INTEGER.fullmatch(text) else None
    if kind is float:
        return float(text) if _DECIMAL.fullmatch(text) else None
    if isinstance(kind, type) and issubclass(kind, Enum):
        return next((member for member in kind if member.value == text), None)
    return None
