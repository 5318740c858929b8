"""`log_wandb(runs)`: each run's headline metrics, its tidy table and its HTML report, to Weights & Biases.

One W&B run per run folder (or General-Level report file), so W&B's own run comparison lines models up:

- metrics: the headline numbers of every benchmark (`export_table`'s `headline` rows), logged once under
  `benchmark/metric[/breakdown...]` (e.g. `mme/perception`, `m3gia/acc/english`), so they are the run's
  summary too; each interval's ends go into the summary as `<key>_ci_low` / `<key>_ci_high`;
- the whole tidy table as a `wandb.Table` (`tidy_table`);
- the HTML report as an artifact of type `mmgauge-report` (built for the run unless a file is given);
- config: the manifest's model, fingerprints, generation settings, datasets and seeds.

`wandb` is an optional extra (`pip install 'mmgauge[wandb]'`), imported only here. Everything wandb writes
locally (the run's files, its logs and cache, the staged report) goes under `<run folder>/wandb/`, unless
`directory` or the user's own W&B settings (`WANDB_DIR`, `WANDB_CACHE_DIR`, `WANDB_DATA_DIR`, ...) say
where. `mode="offline"` (or `WANDB_MODE=offline`) keeps the run there for a later `wandb sync`.
"""

from __future__ import annotations

import importlib
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mmgauge.api.export import RunSource, export_table
from mmgauge.api.runs import Run, load_run
from mmgauge.core.errors import UserError
from mmgauge.parts.tidy import OVERALL

if TYPE_CHECKING:
    import pandas as pd

INSTALL_HINT = "logging to Weights & Biases needs the wandb package: pip install 'mmgauge[wandb]'"
TABLE_KEY = "tidy_table"
ARTIFACT_TYPE = "mmgauge-report"


@dataclass
class WandbLogged:
    """What was logged for one run folder, and where wandb put it."""

    source: str
    run_id: str
    name: str
    #: wandb's local folder of the run (`.../wandb/offline-run-...` or `run-...`).
    directory: Path | None
    #: The run's page (None offline).
    url: str | None
    metrics: dict[str, float] = field(default_factory=dict)
    #: The W&B run's summary as wandb held it just before the run finished.
    summary: dict[str, Any] = field(default_factory=dict)
    table_rows: int = 0
    artifact: str | None = None


def log_wandb(
    runs: RunSource | Sequence[RunSource],
    *,
    project: str = "mmgauge",
    entity: str | None = None,
    name: str | None = None,
    report: bool | str | Path = True,
    mode: Literal["online", "offline", "disabled"] | None = None,
    directory: str | Path | None = None,
    tags: Sequence[str] = (),
) -> list[WandbLogged]:
    """Log each run to its own W&B run in `project`; returns what was logged, run by run.

    - `report`: True builds each run's HTML report and logs it as an artifact; a path logs that file
      instead; False logs none.
    - `name`: the W&B run name (default: the model and the run folder's name).
    - `mode`, `directory`: wandb's `mode` and `dir` (default: `WANDB_MODE`; `WANDB_DIR`, else the run
      folder).
    """
    wandb = _import_wandb()
    sources: list[RunSource] = [runs] if isinstance(runs, str | Path | Run) else list(runs)
    if not sources:
        raise UserError("give at least one run folder")
    if not isinstance(report, bool) and not Path(report).is_file():
        raise UserError("no such report file", file=str(report), field="--report")
    logged = []
    for source in sources:
        frame = export_table([source])
        logged.append(_log_one(wandb, source, frame, project=project, entity=entity, name=name, report=report,
                               mode=mode, directory=directory, tags=list(tags)))
    return logged


def _log_one(wandb: Any, source: RunSource, frame: pd.DataFrame, *, project: str, entity: str | None,
             name: str | None, report: bool | str | Path, mode: str | None, directory: str | Path | None,
             tags: list[str]) -> WandbLogged:
    path = source.path if isinstance(source, Run) else Path(source)
    label = str(frame["run"].iloc[0]) if len(frame) else str(path)
    folder = Path(label)
    model = str(frame["model"].iloc[0]) if len(frame) else folder.name
    metrics, intervals = headline_metrics(frame)
    if directory is None and not os.environ.get("WANDB_DIR"):
        directory = folder if folder.is_dir() else folder.parent
    if directory is not None:
        Path(directory).mkdir(parents=True, exist_ok=True)
    with _wandb_folders(Path(directory or os.environ["WANDB_DIR"]) / "wandb"):
        try:
            run = wandb.init(project=project, entity=entity, name=name or f"{model} ({folder.name})",
                             dir=None if directory is None else str(directory), mode=mode,
                             job_type="evaluation", config=_config(source, model), tags=tags or None)
        except wandb.errors.Error as error:
            raise UserError(f"Weights & Biases refused the run: {_one_line(error)}", field="--log") from None
        return _log_into(wandb, run, frame, source=label, folder=folder, report=report, metrics=metrics,
                         intervals=intervals)


@contextmanager
def _wandb_folders(home: Path) -> Iterator[None]:
    """wandb's cache, staging (data) and artifact folders inside `home` while a run is logged, unless the
    user's own W&B settings name them; the environment is as it was afterwards.

    wandb reads these only from the environment, when it uses them (its default is the user's home: a
    staged copy of every report in `~/.local/share/wandb`, logs and artifacts in `~/.cache/wandb`). Its
    config folder (`WANDB_CONFIG_DIR`, the user's login and defaults) is never moved."""
    chosen = {"WANDB_CACHE_DIR": home / "cache", "WANDB_DATA_DIR": home / "data",
              "WANDB_ARTIFACT_DIR": home / "artifacts"}
    before = {variable: os.environ.get(variable) for variable in chosen}
    for variable, folder in chosen.items():
        if not before[variable]:
            os.environ[variable] = str(folder)
    try:
        yield
    finally:
        for variable, value in before.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value


def _log_into(wandb: Any, run: Any, frame: pd.DataFrame, *, source: str, folder: Path,
              report: bool | str | Path, metrics: dict[str, float], intervals: dict[str, float],
              ) -> WandbLogged:
    with run:
        if metrics:
            run.log(metrics)
        run.summary.update(intervals)
        run.log({TABLE_KEY: wandb.Table(dataframe=_table_frame(frame))})
        artifact = _log_report(wandb, run, folder, report)
        summary = _plain(run.summary)
        logged = WandbLogged(source=source, run_id=str(run.id), name=str(run.name),
                             directory=Path(run.dir).parent if run.dir else None, url=run.url,
                             metrics=metrics, summary=summary, table_rows=len(frame), artifact=artifact)
    return logged


def headline_metrics(frame: pd.DataFrame) -> tuple[dict[str, float], dict[str, float]]:
    """The headline rows as `{key: value}`, and their intervals' ends as `{key_ci_low: ..., ...}`."""
    import pandas as pd

    metrics: dict[str, float] = {}
    intervals: dict[str, float] = {}
    for row in frame[frame["headline"]].itertuples(index=False):
        if pd.isna(row.value):
            continue
        key = metric_key(str(row.benchmark), str(row.metric), str(row.breakdown))
        metrics[key] = float(row.value)
        if not pd.isna(row.ci_low) and not pd.isna(row.ci_high):
            intervals[f"{key}_ci_low"], intervals[f"{key}_ci_high"] = float(row.ci_low), float(row.ci_high)
    return metrics, intervals


def metric_key(benchmark: str, metric: str, breakdown: str) -> str:
    """`benchmark/metric`, then the names of the breakdown's parts (`m3gia/acc/english`)."""
    parts = [benchmark, metric]
    if breakdown != OVERALL:
        parts += [part.partition("=")[2] or part for part in breakdown.split("; ")]
    return "/".join(parts)


def _table_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with missing numbers as None (W&B tables take no pandas NA)."""
    out: pd.DataFrame = frame.astype(object).where(frame.notna(), None)
    return out


def _config(source: RunSource, model: str) -> dict[str, Any]:
    config: dict[str, Any] = {"model": model}
    path = source.path if isinstance(source, Run) else Path(source)
    if not path.is_dir():
        return config
    manifest = (source if isinstance(source, Run) else load_run(path)).manifest
    if manifest is None:
        return config
    config.update({
        "model_fingerprint": manifest.model_fingerprint, "toolkit_version": manifest.toolkit_version,
        "generation": manifest.generation.model_dump(mode="json"),
        "judge": manifest.judge.label() if manifest.judge is not None else None,
        "datasets": {d.benchmark: {"data": d.data, "fingerprint": d.fingerprint, "samples": d.samples,
                                   "options": d.options} for d in manifest.datasets},
        "seeds": manifest.seeds,
    })
    return config


def _log_report(wandb: Any, run: Any, folder: Path, report: bool | str | Path) -> str | None:
    """Log the report of `folder` (a run folder or a General-Level report file) as an artifact."""
    if report is False:
        return None
    artifact = wandb.Artifact(f"report-{_slug(folder.name)}", type=ARTIFACT_TYPE,
                              description=f"mmgauge HTML report of {folder}")
    if report is True:
        from mmgauge.report import write_report

        with tempfile.TemporaryDirectory(prefix="mmgauge-report-") as tmp:
            path = write_report([folder], Path(tmp) / "report.html")
            artifact.add_file(str(path), name="report.html")  # copied into wandb's staging area here
    else:
        artifact.add_file(str(report), name=Path(report).name)
    run.log_artifact(artifact)
    return str(artifact.name)


def _plain(value: Any) -> Any:
    """A summary value as plain data (wandb hands nested entries back as its own mapping type)."""
    return {key: _plain(value[key]) for key in list(value.keys())} if hasattr(value, "keys") else value


def _slug(text: str) -> str:
    """An artifact name: letters, digits, dashes, underscores and dots only."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "run"


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:300] or type(error).__name__


def require_wandb() -> None:
    """A one-line `UserError` with the install hint when wandb is not installed."""
    _import_wandb()


def _import_wandb() -> Any:
    try:
        return importlib.import_module("wandb")
    except ImportError:
        raise UserError(INSTALL_HINT, field="--log") from None
