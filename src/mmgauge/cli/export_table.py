"""`mmgauge export table`: every metric of run folders as one tidy CSV/parquet table, optionally to W&B.

`mmgauge run --log wandb` uses the same pieces: the `LogOption` / `WandbProjectOption` / `WandbEntityOption`
parameters, `require_log_targets(log)` before the run (a missing package fails before any work) and
`log_results(log, [out], project=..., entity=...)` once the run has finished.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from pathlib import Path
from typing import Annotated

import click

from mmgauge.core.errors import UserError
from mmgauge.core.params import Arg, Opt


class LogTarget(str, Enum):
    wandb = "wandb"


LogOption = Annotated[
    list[LogTarget] | None,
    Opt("--log", help="Also log metrics, the tidy table and the HTML report to: wandb (needs "
        "pip install 'mmgauge[wandb]').", show_default=False),
]
WandbProjectOption = Annotated[str, Opt("--wandb-project", help="The W&B project to log to.")]
WandbEntityOption = Annotated[
    str | None, Opt("--wandb-entity", help="The W&B entity (team or user); default: yours.")
]


def require_log_targets(targets: Sequence[LogTarget | str] | None) -> None:
    """Fail now, before any work, when a `--log` target's package is not installed."""
    if "wandb" in _names(targets):
        from mmgauge.api.wandb_log import require_wandb

        require_wandb()


def log_results(targets: Sequence[LogTarget | str] | None, runs: Sequence[Path], *, project: str = "mmgauge",
                entity: str | None = None, report: Path | None = None) -> None:
    """Log `runs` to every target named (only `wandb` so far), one line each on what went where."""
    if "wandb" not in _names(targets):
        return
    from mmgauge.api.wandb_log import log_wandb

    for logged in log_wandb(list(runs), project=project, entity=entity, report=report or True):
        where = logged.url or (f"offline, in {logged.directory} (wandb sync to upload)" if logged.directory
                               else "")
        click.echo(f"wandb: {logged.name}: {len(logged.metrics)} metrics, {logged.table_rows} table rows"
                   f"{', report' if logged.artifact else ''}; {where}")


def _names(targets: Sequence[LogTarget | str] | None) -> set[str]:
    return {LogTarget(t).value for t in targets or ()}


def table_command(
    runs: Annotated[
        list[Path],
        Arg(help="Run folders (or their results files), or General-Level report JSON files.",
            show_default=False),
    ],
    out: Annotated[
        Path | None,
        Opt("--out", "-o", help="The table to write: .csv or .parquet (default: CSV to stdout).",
            show_default=False),
    ] = None,
    log: LogOption = None,
    wandb_project: WandbProjectOption = "mmgauge",
    wandb_entity: WandbEntityOption = None,
    report: Annotated[
        Path | None,
        Opt("--report", help="With --log: the HTML report file to attach (default: one is built "
            "for each run).", show_default=False),
    ] = None,
) -> None:
    """One tidy table of every headline metric and breakdown of every benchmark of RUN...: run, model,
    benchmark, metric, breakdown, value, ci_low, ci_high, n, unit (percent, points, gia, z, count, level),
    status (complete/partial), headline."""
    from mmgauge.api.export import export_table, table_csv

    require_log_targets(log)
    if out is not None and out.is_dir():
        raise UserError("--out names a folder; give the table file to write", file=str(out), field="--out")
    frame = export_table(list(runs), out)
    if out is None:
        click.echo(table_csv(frame), nl=False)
    else:
        click.echo(f"table: {out} ({len(frame)} rows)", err=True)
    log_results(log, runs, project=wandb_project, entity=wandb_entity, report=report)

