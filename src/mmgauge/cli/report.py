"""``mmgauge report``: one self-contained HTML page over run folders, with CSV/XLSX exports of its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import click

from mmgauge.core.params import Arg, Opt


def report_command(
    run_dirs: Annotated[
        list[Path],
        Arg(help="Run folders written by `mmgauge run` (or General-Level report JSON files).",
            show_default=False),
    ],
    out: Annotated[Path, Opt("--out", "-o", help="The HTML file to write.")] = Path("report.html"),
    csv_dir: Annotated[
        Path | None, Opt("--csv", help="Also write every table as a CSV file in this folder.")
    ] = None,
    xlsx: Annotated[
        Path | None, Opt("--xlsx", help="Also write every table to this workbook.")
    ] = None,
    images: Annotated[
        bool, Opt("--images/--no-images", help="Show sample images (re-reads each run's data).")
    ] = True,
) -> None:
    """Write one HTML file for RUN_DIR...: scores with CIs, charts, provenance, manifest, sample browser;
    with several runs also a sortable leaderboard and the samples whose outcome changed."""
    from mmgauge.core.errors import UserError
    from mmgauge.report import write_report

    if out.exists() and out.is_dir():
        raise UserError("--out names a folder; give the HTML file to write", file=str(out), field="--out")
    path = write_report(list(run_dirs), out, csv_dir=csv_dir, xlsx=xlsx, images=images)
    click.echo(f"report: {path}")
