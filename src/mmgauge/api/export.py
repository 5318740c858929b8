"""`export_table(runs)`: every headline metric and breakdown of every benchmark of every run, in one table.

One row per number: `run, model, benchmark, metric, breakdown, value, ci_low, ci_high, n, unit, status`
(see `mmgauge.parts.tidy` for units and breakdown names). `status` is `partial` where the benchmark was not
answered in full (a `--limit` run, failed requests) or the number itself covers less than it should (an MME
total missing a subtask), else `complete`. `headline` marks the few numbers that sum a benchmark up (those
the terminal summary leads with; `log_wandb` logs them as metrics).

Rows come from the built-in functions in `mmgauge.tidy.builtin` by benchmark name, else from the benchmark
class's own `tidy(result)` when an installed plug-in has one, else from every numeric leaf of the stored
result. Runs are run folders (or their `results.json`), `Run`s from `load_run`, or General-Level report JSON
files; a General-Level report saved inside a run folder is exported with that run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pydantic import ValidationError

from mmgauge.api.runs import Run, load_run
from mmgauge.core.errors import UserError
from mmgauge.parts.tidy import TidyProvider, TidyRow, generic_rows
from mmgauge.store.run_folder import RunFolder

if TYPE_CHECKING:
    import pandas as pd

COLUMNS: Final = ("run", "model", "benchmark", "metric", "breakdown", "value", "ci_low", "ci_high", "n",
                  "unit", "status", "headline")
FORMATS: Final = (".csv", ".parquet")
RunSource = str | Path | Run


def export_table(runs: RunSource | Sequence[RunSource], out: str | Path | None = None) -> pd.DataFrame:
    """The tidy table of `runs`; with `out` (`.csv` or `.parquet`) also written there."""
    import pandas as pd

    sources: list[RunSource] = [runs] if isinstance(runs, str | Path | Run) else list(runs)
    if not sources:
        raise UserError("give at least one run folder")
    records: list[dict[str, Any]] = []
    for source in sources:
        records.extend(_run_records(source))
    types = {"value": "float64", "ci_low": "float64", "ci_high": "float64", "n": "Int64", "headline": "bool"}
    frame: pd.DataFrame = pd.DataFrame.from_records(records, columns=list(COLUMNS)).astype(types)
    if out is not None:
        write_table(frame, Path(out))
    return frame


def tidy_rows(benchmark: str, result: Mapping[str, Any]) -> list[TidyRow]:
    """The rows of one benchmark's stored result JSON (built-in, the plug-in's own, or the generic ones)."""
    from mmgauge.benchmarks.registry import known_class
    from mmgauge.tidy.builtin import TIDY_ROWS

    builtin = TIDY_ROWS.get(benchmark)
    if builtin is not None:
        return builtin(result)
    cls = known_class(benchmark)
    own = cls.hook("tidy_rows") if cls is not None else None
    if own is not None:
        rows: list[TidyRow] = own(result)
        return rows
    bench = _plugin(benchmark)
    if bench is not None:
        return list(bench.tidy(bench.read_result(result)))
    return generic_rows(result)


def write_table(frame: pd.DataFrame, out: Path) -> Path:
    """Write the table as CSV (`table_csv`) or parquet (as it is: no spreadsheet reads parquet)."""
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise UserError(f"cannot tell the format: give a file ending in {' or '.join(FORMATS)}",
                        file=str(out), field="--out")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".csv":
            out.write_text(table_csv(frame), encoding="utf-8", newline="")
        else:
            frame.to_parquet(out, index=False)
    except OSError as err:
        raise UserError(f"cannot write the table: {err.strerror or err}", file=str(out)) from None
    return out


def table_csv(frame: pd.DataFrame) -> str:
    """The table as CSV text; text cells a spreadsheet would run as a formula get an apostrophe in front, as
    in the report's exports (numbers, negative ones included, stay numbers)."""
    import pandas as pd

    from mmgauge.core.formulas import defuse

    safe = frame.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):  # text (object or str dtype); bools are numeric
            safe[column] = safe[column].map(defuse)
    text: str = safe.to_csv(index=False, lineterminator="\n")
    return text


def _run_records(source: RunSource) -> list[dict[str, Any]]:
    if isinstance(source, Run):
        return _folder_records(source)
    path = Path(source)
    results_of = RunFolder.results_file_of(path)
    if path.is_file() and path.suffix.lower() == ".json" and results_of is None:
        report = _level_report(path)
        if report is None:
            raise UserError("not a run folder and not a General-Level report JSON", file=str(path))
        model = str(report.get("model") or path.stem)
        return _records(str(source), model, "general_level", "complete", report, str(path))
    if results_of is not None:
        return _folder_records(load_run(results_of.path), str(results_of.path))  # the run is the folder
    return _folder_records(load_run(path), str(source))


def _folder_records(run: Run, label: str | None = None) -> list[dict[str, Any]]:
    from mmgauge.store.run_folder import RunFolder

    folder = RunFolder(run.path)
    if run.results is None:
        raise UserError("the run was not scored (interrupted?): it has no results", file=folder.describe_file(
            "results"))
    name = label if label is not None else str(run.path)
    model = run.results.model or (run.manifest.model.label() if run.manifest is not None else run.path.name)
    where = folder.describe_file("results")
    records: list[dict[str, Any]] = []
    for benchmark, entry in run.results.benchmarks.items():
        records += _records(name, model, benchmark, entry.status, entry.result, where)
    for extra in folder.extra_json_files():
        report = _level_report(extra)
        if report is not None and "general_level" not in run.results.benchmarks:
            records += _records(name, model, "general_level", "complete", report, str(extra))
            break  # one General-Level report per run (the first by file name), as the HTML report shows
    return records


def _records(run: str, model: str, benchmark: str, status: str, result: Mapping[str, Any],
             where: str) -> list[dict[str, Any]]:
    try:
        rows = tidy_rows(benchmark, result)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in (benchmark, *first["loc"]))
        raise UserError(f"the stored {benchmark} result does not read: {first['msg']}", file=where,
                        field=field) from None
    return [{"run": run, "model": model, "benchmark": benchmark, "metric": row.metric,
             "breakdown": row.breakdown, "value": row.value, "ci_low": row.ci_low, "ci_high": row.ci_high,
             "n": row.n, "unit": row.unit, "status": "partial" if status == "partial" or row.partial
             else "complete", "headline": row.headline} for row in rows]


def _level_report(path: Path) -> dict[str, Any] | None:
    """The General-Level report in `path`, or None when the file is not one."""
    from mmgauge.general_level.level_view import as_level_report

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return as_level_report(data)


def _plugin(benchmark: str) -> Any:
    """An instance of the installed benchmark `benchmark` if its class gives its own tidy rows, else None."""
    from mmgauge.benchmarks.registry import benchmark_class

    try:
        cls = benchmark_class(benchmark)
    except UserError:
        return None  # scored by a plug-in not installed here: the generic rows still read its JSON
    if not callable(getattr(cls, "tidy", None)):
        return None
    bench = cls()
    return bench if isinstance(bench, TidyProvider) else None
