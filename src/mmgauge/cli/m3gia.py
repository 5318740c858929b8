"""``mmgauge m3gia``: M3GIA's GIA score from per-type counts of correct answers.

``gia --json`` prints ``{"language": ..., "human_gia": ..., "scale": ..., "rows": [{"gia",
"gia_normalised", "factors", ...}, ...]}`` with one row per input row, in order; ``gia`` is always the
official score (raw counts into the published model), the standardised scale adds ``gia_standardised``,
``factors_standardised`` and ``human_percentile`` (see ``mmgauge.scoring.m3gia_gia``).
"""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from mmgauge.cli.inputs import read_counts, read_csv
from mmgauge.core.errors import UserError

app = typer.Typer(add_completion=False, help="M3GIA: GIA scores from the published CFA models.")


@app.callback()
def m3gia() -> None:
    """M3GIA scores (a group, so ``gia`` stays a subcommand however the app is mounted)."""


class ScaleChoice(str, Enum):
    official = "official"
    standardised = "standardised"


@app.command("gia")
def gia_command(
    language: Annotated[str, typer.Option("--language", help="en, zh, fr, sp/es, pt, ko or the full name.")],
    counts: Annotated[
        Path, typer.Option("--counts", help="CSV or XLSX with the 18 per-type counts, one row per model (the "
                           "release's MLLMs_acc_<lang>_score.xlsx is read as its GIA_<Lang>.R reads it).")
    ],
    scale: Annotated[ScaleChoice, typer.Option("--scale")] = ScaleChoice.official,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Column to drop before scoring (repeatable), e.g. subid."),
    ] = None,
    human_stats: Annotated[
        Path | None,
        typer.Option(
            "--human-stats", help="CSV column,mean,sd: raw human statistics for --scale standardised."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Compute the GIA (and normalised GIA) for each row of a counts file."""
    from mmgauge.scoring import m3gia_gia

    code = m3gia_gia.normalise_language(language)
    table = read_counts(counts, m3gia_gia.load_published_model(code).indicators, list(ignore or []))
    if table.empty:
        raise UserError("no rows: expected one row of counts per model", file=str(counts))
    stats = None
    if human_stats is not None:
        stats = m3gia_gia.human_stats_from_table(read_csv(human_stats), str(human_stats))
    try:
        result = m3gia_gia.compute_gia(table, code, scale=scale.value, human_stats=stats)
    except UserError as problem:
        raise UserError(
            problem.message, file=str(counts), line=problem.line, field=problem.field
        ) from problem
    if as_json:
        typer.echo(json.dumps(result.model_dump()))
        return
    typer.echo(f"M3GIA {result.language}: human GIA {result.human_gia}")
    for i, row in enumerate(result.rows, start=1):
        extra = ""
        if row.gia_standardised is not None:
            extra = f"  standardised {row.gia_standardised:.4f}  human percentile {row.human_percentile:.1f}"
        typer.echo(f"row {i}: GIA {row.gia:.4f}  normalised {row.gia_normalised:.2f}{extra}")
