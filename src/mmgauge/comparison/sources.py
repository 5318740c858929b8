"""What `compare` reads: run folders, and answer files scored elsewhere, each into per-item outcome tables.

- a run folder (or its `results.json`): every benchmark it holds, read from its final records (after the
  judge pass), with the dataset fingerprints of its manifest;
- an MME results folder of the official tool (`<subtask>.txt`), or an MME answers table (TSV/XLSX/JSONL with
  `prediction`), read with `parser` as `mmgauge score mme` reads them;
- another toolkit's answers file of a benchmark with an `answers_reader` hook (MMBench predictions: rules,
  then the judge if one is given, as its `score` command reads them);
- a record file (a run's `samples.jsonl` / `scored.jsonl`).

Which benchmark a table holds is read from its header (MMBench has option columns A, B, ...); `mme=PATH`
or `mmbench=PATH` says it outright.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.comparison.outcomes import from_answers
from mmgauge.core.baselines import BaselineScores
from mmgauge.core.errors import UserError
from mmgauge.core.types import RunManifest
from mmgauge.parts.answers import Answer, by_benchmark
from mmgauge.parts.outcomes import Outcomes
from mmgauge.store.run_folder import RunFolder

if TYPE_CHECKING:
    from mmgauge.extraction.judge import Judge

RUN_FOLDER = "run folder"
_FORCED = ("mme", "mmbench")
_TABLE_SUFFIXES = (".tsv", ".csv", ".txt", ".xlsx", ".xls", ".jsonl", ".json", ".parquet")


@dataclass
class Source:
    path: Path
    label: str
    kind: str
    model: str | None
    outcomes: dict[str, Outcomes]
    #: Dataset fingerprints where known (run folders), by benchmark; and where the data came from.
    fingerprints: dict[str, str] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: What trivial answerers score on its questions (run folders' results), by benchmark and baseline.
    baselines: dict[str, dict[str, BaselineScores]] = field(default_factory=dict)


def read_source(
    given: str | Path, *, parser: str | None = None, judge: Judge | None = None,
    literal_options: bool = False,
) -> Source:
    forced, path = _split_benchmark(given)
    results_of = RunFolder.results_file_of(path)
    if results_of is not None:
        path = results_of.path
    if path.is_dir() and RunFolder(path).exists():
        if forced is not None:
            raise UserError(f"{forced}= is for answer files; a run folder says what it holds", file=str(path))
        return _run_folder(path)
    if not path.exists():
        raise UserError("no such run folder or answers file", file=str(path))
    if path.is_dir():
        if forced not in (None, "mme"):
            raise UserError("a folder that is not a run folder must be an MME results folder", file=str(path))
        return _mme_file(path, parser, "MME results folder")
    if path.suffix.lower() == ".jsonl" and forced is None and _is_record_file(path):
        return _record_file(path)
    benchmark = forced or _table_benchmark(path)
    if benchmark == "mme":
        return _mme_file(path, parser, "MME answers table")
    return _answers_file(path, benchmark, judge, {"parser": parser, "literal_options": literal_options})


def _split_benchmark(given: str | Path) -> tuple[str | None, Path]:
    if isinstance(given, str) and "=" in given:
        name, _, rest = given.partition("=")
        if name.strip().lower() in _FORCED and not Path(given).exists():
            return name.strip().lower(), Path(rest)
    return None, Path(given)


def _run_folder(path: Path) -> Source:
    folder = RunFolder(path)
    manifest = folder.read_manifest()
    results = folder.read_results()
    if not folder.has_records():
        raise UserError(f"the run folder has no answers ({folder.name_of('records')})", file=str(path))
    dicts, judged = folder.record_dicts()
    model = manifest.model.label() if manifest is not None else (results.model if results else None)
    source = run_source(path, model, [Answer.from_dict(data) for data in dicts], manifest)
    if results is not None:
        source.baselines = {name: dict(entry.baselines) for name, entry in results.benchmarks.items()
                            if entry.baselines}
    if not judged:
        source.notes.append(f"{path.name}: no {folder.name_of('scored')} (run not scored?): answers as "
                            "logged, before any judge pass")
    return source


def run_source(
    path: Path, model: str | None, answers: Sequence[Answer], manifest: RunManifest | None
) -> Source:
    """A run folder's source from its final answers (the report passes the ones it has already read)."""
    grouped = by_benchmark(answers)
    source = Source(path, f"{model or 'run'} ({path.name})", RUN_FOLDER, model,
                    {name: from_answers(name, items) for name, items in grouped.items()})
    if manifest is not None:
        source.fingerprints = {d.benchmark: d.fingerprint for d in manifest.datasets}
        source.data = {d.benchmark: d.data for d in manifest.datasets}
    return source


def _record_file(path: Path) -> Source:
    from mmgauge.store.runlog import read_records

    answers = by_benchmark(Answer.from_record(record) for record in read_records(path))
    if not answers:
        raise UserError("no sample records in this file", file=str(path))
    outcomes = {name: from_answers(name, items) for name, items in answers.items()}
    return Source(path, path.name, "record file", None, outcomes)


def _is_record_file(path: Path) -> bool:
    from mmgauge.benchmarks.mme.official import is_record_file

    return is_record_file(path)


def _mme_file(path: Path, parser: str | None, kind: str) -> Source:
    from mmgauge.benchmarks.mme.answers import load_items
    from mmgauge.benchmarks.mme.outcomes import from_items

    notes: list[str] = []
    items, label = load_items(path, parser, notes)
    source = Source(path, path.name, kind, None, {"mme": from_items(items)})
    source.notes = [f"{path.name}: read with the {label} parser", *(f"{path.name}: {n}" for n in notes)]
    return source


def _answers_file(path: Path, benchmark: str, judge: Judge | None, options: dict[str, object]) -> Source:
    """Another toolkit's answers file, read by the benchmark's `answers_reader` hook."""
    from mmgauge.benchmarks.registry import known_class

    cls = known_class(benchmark)
    read = cls.hook("answers_reader") if cls is not None else None
    if read is None:
        raise UserError(f"{benchmark} has no reader of answers files to compare", file=str(path))
    outcomes, kind, notes = read(path, judge, options)
    source = Source(path, path.name, kind, None, {benchmark: outcomes})
    source.notes = [f"{path.name}: {note}" for note in notes]
    return source


def _columns(path: Path) -> list[str]:
    """The column names of a table file (its header only)."""
    suffix = path.suffix.lower()
    try:
        if suffix in (".xlsx", ".xls"):
            from openpyxl import load_workbook

            book = load_workbook(path, read_only=True)
            try:
                first = next(book.worksheets[0].iter_rows(max_row=1, values_only=True), ())
            finally:
                book.close()
            return [str(c) for c in first if c is not None]
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return [str(name) for name in pq.read_schema(path).names]
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            line = handle.readline().strip()
    except (OSError, ValueError, KeyError, StopIteration) as error:
        raise UserError(f"cannot read the file's header ({type(error).__name__})", file=str(path)) from None
    if suffix in (".jsonl", ".json"):
        try:
            data = json.loads(line)
        except ValueError:
            return []
        doc = data.get("doc") if isinstance(data, dict) else None  # lmms-eval's sample log
        return [str(k) for k in (doc if isinstance(doc, dict) else data if isinstance(data, dict) else {})]
    return line.split("\t") if "\t" in line else line.split(",")


def _table_benchmark(path: Path) -> str:
    if path.suffix.lower() not in _TABLE_SUFFIXES:
        raise UserError("not a run folder, MME results folder or answers table (TSV, CSV, XLSX, JSONL)",
                        file=str(path))
    columns = {c.strip() for c in _columns(path)}
    if {"A", "B"} <= columns:
        return "mmbench"
    if "prediction" in columns or "answer" in columns:
        return "mme"
    raise UserError("cannot tell which benchmark this file holds (MMBench predictions have option columns A, "
                    "B, ...; MME answers a prediction column); say it with mme=PATH or mmbench=PATH",
                    file=str(path))
