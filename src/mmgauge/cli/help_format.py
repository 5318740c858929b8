"""How `--help` shows positional arguments, for every command at once.

Typer writes a required argument as `{name}` in the usage line and as `name <type>` in the Arguments list,
which reads like a template placeholder. Here they are written the usual way: `NAME`, `[NAME]` when
optional, `NAME...` when repeatable. Options keep Typer's form (`--out <path>`; flags bare), except that a
repeatable option shows the type of one value (`--data <str>`, not `--data <list[str]>`) and says so.
"""

from __future__ import annotations

import re
from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperOption


def argument_name(argument: TyperArgument) -> str:
    name = (argument.metavar or argument.name or "").upper()
    return name + ("..." if argument.nargs != 1 else "")


class PlainArgumentsCommand(TyperCommand):
    """A Typer command whose help names its arguments in capitals, without braces."""

    # `ctx`, `formatter`: Typer's vendored Click's types (a private module), which Typer does not re-export.
    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                arguments.append((argument_name(param), record[1]))
            elif isinstance(param, TyperOption) and param.multiple:
                names, help_text = record
                if "repeatable" not in help_text:
                    help_text = f"{help_text}  [repeatable]".strip()
                options.append((re.sub(r"<list\[(.+?)\]>", r"<\1>", names), help_text))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
