"""``mmgauge report``: one self-contained HTML page over run folders, with CSV/XLSX exports of its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def report_command(
    run_dirs: Annotated[
        list[Path],
        typer.Argument(help="Run folders written by `mmgauge run` (or General-Level report JSON files).",
                       show_default=False),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The HTML file to write.")] = Path("report.html"),
    csv_dir: Annotated[
        Path | None, typer.Option("--csv", help="Also write every table as a CSV file in this folder.")
    ] = None,
    xlsx: Annotated[
        Path | None, typer.Option("--xlsx", help="Also write every table to this workbook.")
    ] = None,
    images: Annotated[
        bool, typer.Option("--images/--no-images", help="Show sample images (re-reads each run's data).")
    ] = True,
) -> None:
    """Write one HTML file for RUN_DIR...: scores with CIs, charts, provenance, manifest, sample browser;
    with several runs also a sortable leaderboard and the samples whose outcome changed."""
    from mmgauge.core.errors import UserError
    from mmgauge.report import write_report

    if out.exists() and out.is_dir():
        raise UserError("--out names a folder; give the HTML file to write", file=str(out), field="--out")
    path = write_report(list(run_dirs), out, csv_dir=csv_dir, xlsx=xlsx, images=images)
    typer.echo(f"report: {path}")
