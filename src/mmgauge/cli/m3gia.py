"""``mmgauge m3gia``: M3GIA's GIA score from per-type counts of correct answers.

``gia --json`` prints ``{"language": ..., "human_gia": ..., "scale": ..., "rows": [{"gia",
"gia_normalised", "factors", ...}, ...]}`` with one row per input row, in order; ``gia`` is always the
official score (raw counts into the published model), the standardised scale adds ``gia_standardised``,
``factors_standardised`` and ``human_percentile`` (see ``mmgauge.scoring.m3gia_gia``).
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    rich_markup_mode=None, add_completion=False, help="M3GIA: GIA scores from the published CFA models."
)


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
    from mmgauge.api.scores import m3gia_gia_scores
    from mmgauge.scoring.m3gia_gia_text import json_chunks, text_lines

    scores = m3gia_gia_scores(counts, language, scale=scale.value, human_stats=human_stats,
                              ignore=ignore or [])
    pieces = json_chunks(scores) if as_json else (line + "\n" for line in text_lines(scores))
    for piece in pieces:
        sys.stdout.write(piece)
    if as_json:
        sys.stdout.write("\n")
