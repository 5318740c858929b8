"""Command-line values of the plain kinds (text, paths, choices, lists of these) turned into Python values
without building Typer's pydantic adapters.

Typer coerces every parameter through a pydantic `TypeAdapter` it builds on first use: a few milliseconds
per parameter (a `score level` has seven) and, for a command that otherwise needs no pydantic, its whole
import. For the plain kinds the adapters only wrap Typer's own helpers (`coerce_cli_path`,
`coerce_cli_choice`) or return the text as given, so those are called directly here. Anything else (numbers,
parsers, custom types, a value of an unexpected type) and any value the direct path rejects go through
Typer's own adapter, so errors and edge cases stay Typer's.
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click import Context
from typer._coercion import RuntimeParam, build_runtime_param, resolve_type_descriptor
from typer._param_types import coerce_cli_choice, coerce_cli_path
from typer.core import TyperArgument, TyperOption
from typer.models import ParameterInfo

_MISSING = object()


@dataclasses.dataclass(frozen=True)
class PlainRuntimeParam(RuntimeParam):
    """Typer's runtime coercion of one parameter, direct for plain values, Typer's adapter otherwise."""

    def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
        annotation: Any = self.annotation
        if get_origin(annotation) is list:
            (item_type,) = get_args(annotation)
            items = value if isinstance(value, list | tuple) else [value]
            converted = [_plain(item_type, self.parameter_info, item, param, ctx) for item in items]
            if all(item is not _MISSING for item in converted):
                return converted
        else:
            found = _plain(annotation, self.parameter_info, value, param, ctx)
            if found is not _MISSING:
                return found
        descriptor = resolve_type_descriptor(annotation, self.parameter_info)
        return build_runtime_param(descriptor)._coerce_value(value, param=param, ctx=ctx)


def _plain(annotation: Any, info: ParameterInfo, value: Any, param: Any, ctx: Context) -> Any:
    """`value` coerced as Typer's adapter would, or `_MISSING` when that is not sure (the adapter decides)."""
    try:
        if (annotation is str and type(value) is str) or (annotation is bool and type(value) is bool):
            return value
        if annotation is Path and (type(value) is str or isinstance(value, Path)) and not info.allow_dash:
            return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        if isinstance(annotation, type) and issubclass(annotation, Enum) and isinstance(value, str | Enum):
            return coerce_cli_choice(value, choices=list(annotation), case_sensitive=info.case_sensitive,
                                     ctx=ctx)
    except Exception:  # Typer's own adapter reports it, in its own words
        return _MISSING
    return _MISSING


def _is_plain(annotation: Any, info: ParameterInfo) -> bool:
    if info.parser is not None or getattr(info, "click_type", None) is not None or info.path_type is not None:
        return False
    if get_origin(annotation) is list:
        args = get_args(annotation)
        return len(args) == 1 and args[0] in (str, Path)
    return annotation in (str, Path, bool) or (isinstance(annotation, type) and issubclass(annotation, Enum))


def use_plain_values(command: Any, parent: Context | None = None) -> None:
    """Give each plain parameter of `command` (a built click command or group, and its subcommands) and its
    `--help` flag `PlainRuntimeParam`. A parameter of another kind, or already built, is left to Typer."""
    # The help flag is made on first use and kept; made here from the context settings a run would use.
    context = Context(command, parent=parent, **(command.context_settings or {}))
    for param in [*getattr(command, "params", []), command.get_help_option(context)]:
        if not isinstance(param, TyperArgument | TyperOption):
            continue
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", _MISSING) is not None:
            continue
        if descriptor.is_file or not _is_plain(descriptor.annotation, descriptor.parameter_info):
            continue
        # Typer builds this lazily, on first use, when it is unset.
        param._runtime_param = PlainRuntimeParam(
            parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)
    for sub in getattr(command, "commands", {}).values():
        use_plain_values(sub, context)
