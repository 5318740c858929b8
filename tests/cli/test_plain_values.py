"""Plain command-line values coerced without Typer's pydantic adapters give what the adapters give."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from typer._click import Context
from typer._coercion import build_runtime_param

from mmgauge.cli.plain_values import PlainRuntimeParam, use_plain_values


class Colour(str, Enum):
    red = "red"
    green = "Green"


def _command(tmp_path: Path) -> Any:
    app = typer.Typer()

    @app.command()
    def everything(
        path: Annotated[Path, typer.Argument()],
        paths: Annotated[list[Path], typer.Option("--paths")] = [],  # noqa: B006 - Typer reads it
        existing: Annotated[Path | None, typer.Option("--existing", exists=True)] = None,
        folder: Annotated[Path | None, typer.Option("--folder", file_okay=False)] = None,
        dash: Annotated[Path | None, typer.Option("--dash", allow_dash=True)] = None,
        text: Annotated[str | None, typer.Option("--text")] = None,
        texts: Annotated[list[str] | None, typer.Option("--texts")] = None,
        colour: Annotated[Colour, typer.Option("--colour", case_sensitive=False)] = Colour.red,
        strict_colour: Annotated[Colour | None, typer.Option("--strict-colour")] = None,
        flag: Annotated[bool, typer.Option("--flag")] = False,
        count: Annotated[int, typer.Option("--count")] = 0,
    ) -> None:
        """A command with one parameter of each kind."""

    (tmp_path / "a file").write_text("x", encoding="utf-8")
    return typer.main.get_command(app)


VALUES: list[Any] = [
    "plain", "", "-", "ünïcödé/päth", "a//b/", "~", "a\udcffb", "RED", "red", "Green", "green", "blue",
    "true", "0", "12", True, False, Path("given"), Colour.green, ("one", "two"), ["x", "-"], 3, None,
]


def _outcome(runtime: Any, value: Any, param: Any, ctx: Context) -> tuple[str, Any]:
    try:
        return "value", runtime.coerce(value, param=param, ctx=ctx)
    except Exception as error:  # the error is what is compared
        return type(error).__name__, str(error)


def test_plain_values_match_typers_adapters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    command = _command(tmp_path)
    ctx = Context(command)
    compared = 0
    for param in command.params:
        descriptor = param.type_descriptor
        plain = PlainRuntimeParam(parameter_info=descriptor.parameter_info, annotation=descriptor.annotation)
        reference = build_runtime_param(descriptor)
        for value in [*VALUES, str(tmp_path / "a file"), str(tmp_path), tmp_path / "a file"]:
            expected = _outcome(reference, value, param, ctx)
            found = _outcome(plain, value, param, ctx)
            assert found == expected, (param.name, value)
            assert type(found[1]) is type(expected[1]), (param.name, value)
            compared += 1
    assert compared > 200


def test_only_plain_parameters_skip_the_adapters(tmp_path: Path) -> None:
    command = _command(tmp_path)
    use_plain_values(command)
    kinds = {param.name: type(param._runtime_param).__name__ for param in command.params}
    assert kinds["count"] == "NoneType"  # numbers stay with Typer, built on first use
    assert {kinds[name] for name in kinds if name != "count"} == {"PlainRuntimeParam"}
    help_option = command.get_help_option(Context(command))
    assert type(help_option._runtime_param).__name__ == "PlainRuntimeParam"
