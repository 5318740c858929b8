"""Click commands built from `Arg`/`Opt` declarations, so that a benchmark's command module imports no Click
(the tree does, when it mounts the command) and every command's function stays plain to call from Python.

A command declares each parameter as ``Annotated[T, Arg(...)]`` or ``Annotated[T, Opt("--name", ...)]``
(`core/params.py`, so that a benchmark's own command module below the command line can declare them too).
`command_for` reads the declarations into Click's parameters: the type says how a value is read (Path,
int, float, str, an Enum's values, a bool flag, `list[T]` repeatable, `T | None` optional) and the settings
are Click's, with a number's range and a path's checks given as keywords (`min=1`, `exists=True`).
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import click
from click.core import ParameterSource

from mmgauge.cli.help_format import PlainArgument, PlainOption, format_parameters
from mmgauge.core.params import Arg, Opt

#: Settings that shape a value's type rather than the parameter (`click.Path`, `click.IntRange`, ...).
PATH_SETTINGS = ("exists", "file_okay", "dir_okay", "writable", "readable", "resolve_path", "allow_dash")
RANGE_SETTINGS = ("min", "max", "min_open", "max_open", "clamp")
#: How an option's value is named in `--help` (`--seed <int>`), by the type it is read as.
TYPE_NAMES: dict[type, str] = {str: "str", int: "int", float: "float", Path: "path"}


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

    @property
    def many(self) -> bool:
        """Whether it takes any number of values (`list[T]`)."""
        return typing.get_origin(self.type) is list

    @property
    def element(self) -> Any:
        """The type of one value."""
        return typing.get_args(self.type)[0] if self.many else self.type


def declared(command: Callable[..., Any]) -> list[Declared]:
    """The parameters of `command`, in order, as its annotations declare them."""
    hints = typing.get_type_hints(command, include_extras=True)
    found = []
    for name, parameter in inspect.signature(command).parameters.items():
        hint = hints[name]
        base, *extras = typing.get_args(hint) if typing.get_origin(hint) is typing.Annotated else (hint,)
        kinds = [extra for extra in extras if isinstance(extra, Arg | Opt)]
        if len(kinds) > 1:
            raise TypeError(f"{command.__name__}: parameter {name} needs exactly one Arg or Opt")
        members = typing.get_args(base) if typing.get_origin(base) in (Union, types.UnionType) else ()
        optional = type(None) in members
        if optional:
            rest = [member for member in members if member is not type(None)]
            base = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007 (built at run time)
        kind = kinds[0] if kinds else _undeclared(name, base, parameter.default)
        found.append(Declared(name, kind, base, optional, parameter.default))
    return found


def _undeclared(name: str, base: Any, default: Any) -> Arg | Opt:
    """A parameter with a plain annotation (a plug-in's command written for Typer): read as Typer read it,
    an argument without a default, else `--name` (`--name/--no-name` for a bool)."""
    if default is inspect.Parameter.empty:
        return Arg()
    flag = f"--{name.replace('_', '-')}"
    return Opt(f"{flag}/--no-{flag[2:]}" if base is bool else flag)


def value_type(item: Declared, settings: dict[str, Any]) -> tuple[click.ParamType[Any], str]:
    """The Click type of one of `item`'s values and its name in `--help`; takes the type's own settings out
    of `settings`."""
    kind = item.element
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        values = [str(member.value) for member in kind]
        sensitive = settings.pop("case_sensitive", True)
        return click.Choice(values, case_sensitive=sensitive), f"<{'|'.join(values)}>"
    if kind is Path:
        checks = {name: settings.pop(name) for name in PATH_SETTINGS if name in settings}
        return click.Path(path_type=Path, **checks), "<path>"
    if kind in (int, float):
        bounds = {name: settings.pop(name) for name in RANGE_SETTINGS if name in settings}
        if bounds:
            ranged = click.IntRange(**bounds) if kind is int else click.FloatRange(**bounds)
            return ranged, f"<{TYPE_NAMES[kind]} range>"
        return (click.INT if kind is int else click.FLOAT), f"<{TYPE_NAMES[kind]}>"
    if kind is str:
        return click.STRING, "<str>"
    raise TypeError(f"parameter {item.name}: no command-line reading of {kind!r}")


def parameter(item: Declared) -> click.Parameter:
    """`item` as Click's argument or option."""
    settings = dict(item.kind.settings)
    if not item.required:  # a required one has none at all: Click reads a default None as given
        settings["default"] = _shown(item.default)
    if isinstance(item.kind, Arg):
        kind, _ = value_type(item, settings)
        return PlainArgument([item.name], type=kind, required=item.required, nargs=-1 if item.many else 1,
                             **settings)
    decls = [*(item.kind.decls or [f"--{item.name.replace('_', '-')}"]), item.name]
    settings.setdefault("show_default", True)
    if item.element is bool:
        return PlainOption(decls, is_flag=True, **settings)
    if settings.get("count"):
        return PlainOption(decls, **settings)
    kind, name = value_type(item, settings)
    settings.setdefault("metavar", name)
    return PlainOption(decls, type=kind, required=item.required, multiple=item.many, **settings)


def _shown(default: Any) -> Any:
    """A default as Click reads it: an Enum's value, a list's values."""
    if isinstance(default, enum.Enum):
        return default.value
    if isinstance(default, list):
        return [_shown(value) for value in default]
    return default


def _value(item: Declared, value: Any) -> Any:
    """What Click read for `item`, as the function's annotation says: Enum members, a list (None where a
    repeatable parameter whose default is None is not given)."""
    kind = item.element
    one: Callable[[Any], Any] = kind if isinstance(kind, type) and issubclass(kind, enum.Enum) else _same
    if item.many:
        if not value and item.default is None:
            return None
        return [one(each) for each in value]
    return None if value is None else one(value)


def _same(value: Any) -> Any:
    return value


class ReleasesOnBadArgs(click.Command):
    """A command (or group) whose resources, the input caps its options entered (`limit_options`), are let
    go when its command line fails to parse: the command never runs, so nothing else would."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except BaseException:
            ctx.close()
            raise


class LeafCommand(ReleasesOnBadArgs):
    """A command of the tree: its arguments in their own section of `--help`."""

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        pass  # Click 8.5 lists them apart ("Positional arguments"); `format_options` does, as before

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        format_parameters(self, ctx, formatter)


def callback_for(function: Callable[..., Any]) -> tuple[Callable[..., Any], list[click.Parameter]]:
    """Click's callback that calls `function` with its parameters' values as annotated, and the parameters."""
    items = declared(function)

    def callback(**values: Any) -> Any:
        # Parameters Click does not pass on (`expose_value=False`) keep the function's defaults.
        return function(**{item.name: _value(item, values[item.name])
                           for item in items if item.name in values})

    return callback, [parameter(item) for item in items]


def command_for(name: str, function: Callable[..., Any], hidden: bool = False) -> click.Command:
    """`function` as the Click command `name`, with the input caps (`limit_options`) beside its own."""
    callback, params = callback_for(function)
    return LeafCommand(name, callback=callback, params=[*params, *limit_options(hidden=True)],
                       help=inspect.getdoc(function), hidden=hidden)


def limit_options(hidden: bool = False) -> list[click.Option]:
    """`--max-input-size`, `--max-input-rows` and `--max-input-ratio`: the caps on every file any command
    reads, on the root and on every group and command (so that they work before and after a command's name).
    A cap given holds until its command ends; one given twice, the innermost wins."""
    from mmgauge.datasources.limits import InputLimits

    defaults = InputLimits()
    shown = {"--max-input-size": f"{defaults.max_bytes // 2**30}G",
             "--max-input-rows": str(defaults.max_rows), "--max-input-ratio": str(defaults.max_ratio)}
    helps = {"--max-input-size": "The most a workbook, parquet or arrow file may unpack to.",
             "--max-input-rows": "The most rows such a file may have.",
             "--max-input-ratio": "The most a workbook's part may unpack to per packed byte."}
    return [click.Option([name], metavar="SIZE" if name == "--max-input-size" else "N", default=shown[name],
                         callback=_enter_limit, expose_value=False, show_default=True, help=helps[name],
                         hidden=hidden)
            for name in shown]


def _enter_limit(ctx: click.Context, param: click.Parameter, value: str) -> None:
    from mmgauge.datasources.limits import OPTIONS, input_limits, parse_limit

    # Only a cap typed enters: the default one would undo caps a caller of `main` holds (`input_limits`).
    if param.name is None or ctx.get_parameter_source(param.name) is not ParameterSource.COMMANDLINE:
        return
    option = param.opts[0]
    ctx.with_resource(input_limits(**{OPTIONS[option][0]: parse_limit(option, value)}))
