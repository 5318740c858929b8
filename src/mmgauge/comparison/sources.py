"""What `compare` reads: run folders, and answer files scored elsewhere, each into per-item outcome tables.

- a run folder (or its `results.json`): every benchmark it holds, read from its final records (after the
  judge pass), with the dataset fingerprints of its manifest;
- answers scored elsewhere that a benchmark reads (its `answers_reader` hook: an official tool's results
  folder, another toolkit's predictions file, an answers table), read as `mmgauge score NAME` reads them
  (with `parser`; rules, then the judge if one is given);
- a record file (a run's `samples.jsonl` / `scored.jsonl`).

Which benchmark a file holds is the first benchmark (in display order) whose reader takes it, from the
table's header (a choice benchmark's has option columns A, B, ...); `NAME=PATH` says it outright.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mmgauge.benchmarks.answer_files import AnswersRequest
from mmgauge.comparison.outcomes import from_answers
from mmgauge.core.baselines import BaselineScores
from mmgauge.core.errors import UserError
from mmgauge.core.types import RunManifest
from mmgauge.parts.answers import Answer, by_benchmark
from mmgauge.parts.outcomes import Outcomes
from mmgauge.store.run_folder import RunFolder
from mmgauge.store.runlog import is_record_file

if TYPE_CHECKING:
    from mmgauge.extraction.judge import Judge

RUN_FOLDER = "run folder"
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
    if path.suffix.lower() == ".jsonl" and path.is_file() and forced is None and is_record_file(path):
        return _record_file(path)
    columns = None if path.is_dir() else _table_columns(path)
    request = AnswersRequest(columns, forced is not None, parser, judge, literal_options)
    for name, read in _answers_readers(forced):
        found = read(path, request)
        if found is not None:
            return Source(path, path.name, found.kind, None, {name: found.outcomes}, notes=found.notes)
    what = "folder" if columns is None else "file"
    raise UserError(f"cannot tell which benchmark this {what} holds: no benchmark's reader of answers files "
                    "takes it; say it with NAME=PATH", file=str(path))


def _answers_readers(forced: str | None) -> list[tuple[str, Any]]:
    """(name, reader) of the benchmarks that read answers scored elsewhere (`forced`'s alone, if given)."""
    from mmgauge.benchmarks.registry import all_benchmarks, known_class

    found: list[tuple[int, str, Any]] = []
    for name in [forced] if forced is not None else sorted(all_benchmarks()):
        cls = known_class(name)
        if cls is not None and cls.answers_reader is not None:
            found.append((cls.display_order, name, cls))
    return [(name, cls.hook("answers_reader")) for _, name, cls in sorted(found)]


def _split_benchmark(given: str | Path) -> tuple[str | None, Path]:
    if isinstance(given, str) and "=" in given:
        name, _, rest = given.partition("=")
        if _can_force(name.strip().lower()) and not Path(given).exists():
            return name.strip().lower(), Path(rest)
    return None, Path(given)


def _can_force(name: str) -> bool:
    """Whether `NAME=` may name the benchmark of an answers file: one that reads them."""
    from mmgauge.benchmarks.registry import known_class

    cls = known_class(name) if name and "/" not in name and "\\" not in name else None
    return cls is not None and cls.answers_reader is not None


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


def _table_columns(path: Path) -> frozenset[str]:
    if path.suffix.lower() not in _TABLE_SUFFIXES:
        raise UserError("not a run folder, results folder or answers table (TSV, CSV, XLSX, JSONL)",
                        file=str(path))
    return frozenset(c.strip() for c in _columns(path))
