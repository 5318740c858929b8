"""Command-line parameters declared without importing Typer, so that a command's module stays cheap to import
(and its function plain to call from Python).

A command declares each parameter as ``Annotated[T, Arg(...)]`` or ``Annotated[T, Opt("--name", ...)]``
(`core/params.py`, so that a benchmark's own command module below the command line can declare them too).
`for_typer` turns the declarations into Typer's when the command is mounted; Typer alone reads command lines.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

from mmgauge.core.params import Arg, Opt


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


def declares(command: Callable[..., Any]) -> bool:
    """Whether `command` declares its parameters with `Arg`/`Opt` (else Typer's own declarations)."""
    for hint in typing.get_type_hints(command, include_extras=True).values():
        if typing.get_origin(hint) is typing.Annotated and any(
                isinstance(extra, Arg | Opt) for extra in typing.get_args(hint)[1:]):
            return True
    return False


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
