"""The HTML report over one or more run folders, with CSV/XLSX exports of its tables.

`write_report(run_dirs, out)` is the whole job; `build_report` returns the page and tables without writing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mmgauge.core.errors import UserError
from mmgauge.parts.report.tables import Table, write_csv, write_xlsx


@dataclass
class Report:
    html: str
    tables: list[Table]
    samples: int


def build_report(run_dirs: list[Path], *, images: bool = True) -> Report:
    """Read the runs and build the page; `images=False` leaves thumbnails out (no dataset is read)."""
    from mmgauge.report.browser import build_browser
    from mmgauge.report.html import render_page
    from mmgauge.report.images import collect_images
    from mmgauge.report.load import load_runs

    runs = load_runs(run_dirs)
    browser = build_browser(runs, collect_images(runs) if images else None)
    page = render_page(runs, browser)
    return Report(page.html, page.tables, browser.rows)


def write_report(
    run_dirs: list[Path],
    out: Path,
    *,
    csv_dir: Path | None = None,
    xlsx: Path | None = None,
    images: bool = True,
) -> Path:
    """Write the report for `run_dirs` to `out`, and its tables as CSV files / one workbook; returns `out`."""
    report = build_report(run_dirs, images=images)
    tmp = out.with_name(out.name + ".tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(report.html, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as err:
        raise UserError(f"cannot write the report: {err.strerror}", file=str(out)) from None
    if csv_dir is not None:
        write_csv(report.tables, csv_dir)
    if xlsx is not None:
        write_xlsx(report.tables, xlsx)
    return out


__all__ = ["Report", "build_report", "write_report"]
