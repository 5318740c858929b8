"""How `--help` shows parameters, for every command at once.

Arguments are listed in their own section, the usual way: `NAME`, `[NAME]` when optional, `NAME...` when
repeatable, with their help and `[required]`. An option shows the type of its value (`--out <path>`,
`--seed <int>`, `--mode <official|corrected>`; flags bare), and a repeatable one says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click


def argument_name(argument: click.Argument) -> str:
    name = (argument.metavar or argument.name or "").upper()
    return name + ("..." if argument.nargs != 1 else "")


class PlainArgument(click.Argument):
    """An argument with a help text, named in capitals without braces (a Choice's values are in its help)."""

    def __init__(self, param_decls: Sequence[str], help: str | None = None,
                 show_default: bool = True, **attrs: Any) -> None:
        super().__init__(param_decls, **attrs)
        self.help = help
        self.show_default = show_default

    def make_metavar(self, ctx: Any = None) -> str:
        name = argument_name(self)
        return name if self.required else f"[{name}]"

    def get_help_record(self, ctx: click.Context) -> tuple[str, str]:
        extra = []
        if self.show_default and not self.required and self.default not in (None, (), []):
            extra.append(f"default: {self.default}")
        if self.required:
            extra.append("required")
        text = self.help or ""
        if extra:
            text = f"{text}  [{'; '.join(extra)}]".strip()
        return argument_name(self), text


class PlainOption(click.Option):
    """An option whose help says `[repeatable]` where it may be given more than once."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        record = super().get_help_record(ctx)
        if record is None or not self.multiple or "repeatable" in record[1]:
            return record
        return record[0], f"{record[1]}  [repeatable]".strip()


def format_parameters(command: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
    """The Arguments and Options sections of `command`'s help."""
    arguments: list[tuple[str, str]] = []
    options: list[tuple[str, str]] = []
    for param in command.get_params(ctx):
        if isinstance(param, click.Argument):
            arguments.append(param.get_help_record(ctx))
            continue
        record = param.get_help_record(ctx)
        if record is not None:
            options.append(record)
    for title, rows in (("Arguments", arguments), ("Options", options)):
        if rows:
            with formatter.section(title):
                formatter.write_dl(rows)
