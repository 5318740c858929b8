"""Read run folders (through `RunFolder`) into the typed views the report is built from.

Records are read into slim `Row`s rather than full `SampleRecord`s: a 100,000-sample run then fits in a
fraction of the memory and parses several times faster.

A General-Level `LevelReport` JSON (from `mmgauge score level` or from runs) is accepted in two places: as a
file given instead of a run folder, or as an extra `*.json` saved in a run folder. Any other extra `*.json`
there (unreadable, or not shaped like a level report) is ignored with a note, never an error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mmgauge.core.errors import UserError
from mmgauge.core.types import RunManifest
from mmgauge.general_level.level_view import as_level_report
from mmgauge.parts.report.views import BenchView, Row
from mmgauge.store.judge_audit import JudgeAgreement, JudgeAudit
from mmgauge.store.results import BenchmarkResults, RunResults
from mmgauge.store.run_folder import RunFolder

if TYPE_CHECKING:
    from mmgauge.parts.answers import Answer

#: Counts each benchmark's results carry, in the order the report shows them.
COUNT_FIELDS: Final = ("samples", "requested", "cache_hits", "resumed", "failed", "judge_calls", "truncated")
GENERAL_LEVEL: Final = "general_level"


@dataclass
class RunView:
    path: Path
    model: str
    manifest: RunManifest | None
    benchmarks: dict[str, BenchView]
    notes: list[str] = field(default_factory=list)
    #: What every display of this run's numbers must say (built-in sample data, a baseline model).
    caveats: list[str] = field(default_factory=list)
    #: Short tags of the caveats (`sample data`, `baseline`).
    marks: list[str] = field(default_factory=list)
    #: What the judge decided (stored, or computed from the records for folders written before it was).
    judge_audit: JudgeAudit | None = None
    #: The `mmgauge audit-judge` studies kept in the folder.
    judge_agreement: JudgeAgreement | None = None

    @property
    def label(self) -> str:
        """Model and folder: two runs of one model stay apart in tables; caveats marked."""
        suffix = f" [{', '.join(self.marks)}]" if self.marks else ""
        return f"{self.model} ({self.path.name}){suffix}"


def _row(data: dict[str, Any]) -> Row:
    response = data["response"]
    extraction = data.get("extraction") or {}
    detail = extraction.get("detail")
    if extraction.get("judge_reply"):
        detail = f"{detail + '; ' if detail else ''}judge said: {extraction['judge_reply']}"
    # Positional, and the parsed metadata dict kept as it is (it is this record's own): 100,000 rows.
    return Row(
        str(data["benchmark"]), str(data["sample_id"]), int(data.get("round", 0)),
        str(data.get("prompt", "")), response.get("text"), response.get("error"), extraction.get("answer"),
        extraction.get("method") if extraction else None, detail, data.get("target"),
        data.get("correct"), data.get("metadata") or {},
        None if "images" not in data else [(str(i["sha256"]), i.get("path")) for i in data["images"]],
    )


def read_rows(folder: RunFolder) -> tuple[list[Row], bool]:
    """The folder's final records as rows, and whether they include the judge pass."""
    dicts, judged = folder.record_dicts()
    rows = []
    for data in dicts:
        try:
            rows.append(_row(data))
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            raise UserError(f"not a sample record ({err})", file=str(folder.path)) from None
    return rows, judged


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UserError(f"cannot read JSON: {err}", file=str(path)) from None


def _extra_json(path: Path, benchmarks: dict[str, BenchView]) -> str | None:
    """Add `path` as the run's General-Level report if it is one; else why it was ignored."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return f"not readable as JSON ({type(err).__name__})"
    report = as_level_report(data)
    if report is None:
        return "not a General-Level report (the only extra JSON a run folder may hold)"
    if GENERAL_LEVEL in benchmarks:
        return "a second General-Level report; the first one (by file name) is shown"
    benchmarks[GENERAL_LEVEL] = BenchView(GENERAL_LEVEL, result=report)
    return None


def _load_level_file(path: Path) -> RunView:
    report = as_level_report(_read_json(path))
    if report is None:
        raise UserError("not a run folder and not a General-Level report JSON", file=str(path))
    view = BenchView(GENERAL_LEVEL, result=report)
    model = str(report.get("model") or path.stem)
    # Levels computed from sample data or a baseline carry those caveats, as the runs themselves do.
    caveats = [str(text) for text in report.get("caveats") or []]
    marks = [str(text) for text in report.get("labels") or []]
    return RunView(path=path, model=model, manifest=None, benchmarks={GENERAL_LEVEL: view}, caveats=caveats,
                   marks=marks)


def _view(name: str, entry: BenchmarkResults) -> BenchView:
    counts = {key: int(getattr(entry, key)) for key in COUNT_FIELDS}
    return BenchView(name, counts, list(entry.headline), entry.result or None,
                     status=entry.status, coverage=entry.coverage(), baselines=dict(entry.baselines))


def load_run(path: Path) -> RunView:
    """One run folder (or a LevelReport JSON file); `UserError` if it is neither."""
    if path.is_file() and path.suffix == ".json":
        return _load_level_file(path)
    folder = RunFolder(path).require()
    notes: list[str] = []
    manifest: RunManifest | None = folder.read_manifest()
    if manifest is None:
        notes.append(f"{folder.name_of('manifest')} is missing: the run's provenance is unknown")
    benchmarks: dict[str, BenchView] = {}
    model = manifest.model.label() if manifest is not None else path.name
    results: RunResults | None = folder.read_results()
    if results is not None:
        benchmarks = {name: _view(name, entry) for name, entry in results.benchmarks.items()}
        model = results.model or model
    else:
        notes.append(f"{folder.name_of('results')} is missing: the run was not scored (interrupted?); only "
                     "answers are shown")
    rows, judged = read_rows(folder) if folder.has_records() else ([], True)
    if not judged:
        notes.append(f"{folder.name_of('scored')} is missing: answers are the raw log's, before any judge "
                     "resolution")
    for row in rows:
        bench = benchmarks.get(row.benchmark)
        if bench is None:
            bench = benchmarks[row.benchmark] = BenchView(row.benchmark)
        bench.rows.append(row)
    for extra in folder.extra_json_files():
        why = _extra_json(extra, benchmarks)
        if why is not None:
            notes.append(f"{extra.name} ignored: {why}")
    caveats = list(results.notes) if results is not None else []
    marks = list(results.labels) if results is not None else []
    run = RunView(path=path, model=model, manifest=manifest, benchmarks=benchmarks, notes=notes,
                  caveats=caveats, marks=marks)
    _judge_documents(run, folder, rows)
    return run


def answers_of(rows: list[Row]) -> list[Answer]:
    """The rows as the comparison and the judge audit read records."""
    from mmgauge.parts.answers import Answer

    return [Answer(r.benchmark, r.sample_id, r.round, r.failed, r.answer, r.method, r.target, r.correct,
                   r.metadata) for r in rows]


def _judge_documents(view: RunView, folder: RunFolder, rows: list[Row]) -> None:
    """The folder's judge audit and agreement studies; an unreadable one is a note, never an error."""
    try:
        view.judge_audit = folder.read_judge_audit()
    except UserError as problem:
        view.notes.append(f"{folder.name_of('judge_audit')} ignored: {problem.message}")
    if view.judge_audit is None and rows:
        from mmgauge.comparison.audit import judge_audit

        judge = view.manifest.judge.label() if view.manifest and view.manifest.judge else None
        try:
            view.judge_audit = judge_audit(answers_of(rows), judge)
        except (KeyError, ValueError, TypeError) as problem:
            view.notes.append(f"no judge audit: the records lack what it needs ({type(problem).__name__})")
    try:
        view.judge_agreement = folder.read_judge_agreement()
    except UserError as problem:
        view.notes.append(f"{folder.name_of('judge_agreement')} ignored: {problem.message}")


def load_runs(paths: list[Path]) -> list[RunView]:
    if not paths:
        raise UserError("give at least one run folder")
    return [load_run(path) for path in paths]
