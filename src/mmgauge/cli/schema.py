"""`mmgauge schema NAME`: the JSON Schema of a file mmgauge reads (the same text ships in the package)."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import click

from mmgauge.core.params import Arg


class SchemaName(str, Enum):
    run_config = "run-config"


def schema(
    name: Annotated[SchemaName, Arg(help="run-config: the file of `mmgauge run --config FILE`.")],
) -> None:
    """Print the JSON Schema of a file mmgauge reads (for editors and validators)."""
    from mmgauge.api.run_config import schema_text

    click.echo(schema_text(), nl=False)
