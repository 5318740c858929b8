"""Results as CSV/JSON rows ``modality, paradigm, task, metric, score`` (optionally ``model``).

A CSV needs a header naming those fields; a JSON file is a list of objects, or an object with a ``rows``
list (and optionally a ``model`` for every row). Each score keeps its file, CSV line or JSON row and field
(:class:`~mmgauge.scoring.general_level.records.ScoreSource`), so scoring can point at it. A file with no
rows is an error, not a model that scores 0.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from mmgauge.core.errors import UserError
from mmgauge.general_level.cells import key, lookup_metric_message, number, same_metric
from mmgauge.scoring.general_level.metrics import find_metric
from mmgauge.scoring.general_level.records import (
    MODALITIES,
    NLP_SHEET,
    PARADIGMS,
    ResultTable,
    ScoreSource,
    TaskRow,
)

ROW_COLUMNS = ("modality", "paradigm", "task", "metric", "score")
NLP_PARADIGMS = frozenset({"", "nlp", "-", "none", "n/a"})


@dataclass(frozen=True)
class RowFile:
    """The rows of a CSV or JSON results file, numbered by CSV line or JSON row (``unit``).

    ``fields`` is the CSV header (None for JSON, whose rows each carry their own keys).
    """

    unit: Literal["line", "row"]
    fields: list[str] | None
    rows: list[tuple[int, dict[str, Any]]]


def read_csv_rows(path: Path, model: str | None = None) -> RowFile:
    """The rows of a CSV file; with `model`, a large file may leave out rows `rows_table` would skip for it
    (other models' rows), read column-wise (see `_model_rows`)."""
    if model is not None:
        found = _model_rows(path, model)
        if found is not None:
            return found
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            try:
                rows = [(reader.line_num, dict(r)) for r in reader]
            except csv.Error as err:
                raise UserError(f"cannot read CSV: {err}", file=str(path), line=reader.line_num) from None
            fields = list(reader.fieldnames) if reader.fieldnames is not None else None
    except UnicodeDecodeError as err:
        raise UserError(f"not UTF-8 text: {err.reason} at byte {err.start}", file=str(path)) from None
    if fields is None:
        raise UserError(f"empty file: expected a header with the fields {list(ROW_COLUMNS)}", file=str(path))
    return RowFile(unit="line", fields=fields, rows=rows)


def _model_rows(path: Path, model: str) -> RowFile | None:
    """The header and the rows of `model` (and rows naming no model), as the csv module reads them, read
    with pyarrow: a results file of many models is read without a Python object per cell of the others.

    None (read it with the csv module) unless every row is one line: a line break inside a quoted cell, an
    empty line or a lone CR would shift the line numbers the rows are named by. Problems in the file are
    left to the csv module's reading too.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from mmgauge.datasources.arrow_numpy import distinct, take

    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            header = next(csv.reader(handle), [])
        table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(header, pa.string()), strings_can_be_null=False,
            quoted_strings_can_be_null=False))
    except (pa.ArrowInvalid, OSError, UnicodeDecodeError, csv.Error):
        return None
    fields = table.column_names
    named = [name for name in fields if key(name) == "model"]
    if fields != header or len(set(fields)) != len(fields) or len(named) > 1 \
            or _line_count(path) != table.num_rows + 1:
        return None
    rows = np.arange(table.num_rows)
    if named:
        values, codes = distinct(table.column(named[0]))
        kept = [not (value.strip() and key(value.strip()) != key(model)) for value in values]
        rows = rows[np.array(kept, dtype=bool)[codes]] if values else rows
    columns = [take(table.column(name), rows).to_pylist() for name in fields]
    dicts = [dict(zip(fields, cells, strict=True)) for cells in zip(*columns, strict=True)]
    return RowFile(unit="line", fields=fields, rows=list(zip((rows + 2).tolist(), dicts, strict=True)))


def _line_count(path: Path) -> int:
    """Lines as the csv module counts them (a last line without a line break counts too)."""
    count, last = 0, b"\n"
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def read_json_rows(path: Path) -> RowFile:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise UserError(f"not UTF-8 text: {err.reason} at byte {err.start}", file=str(path)) from None
    except json.JSONDecodeError as err:
        raise UserError(f"not valid JSON: {err.msg}", file=str(path), line=err.lineno) from None
    rows = data.get("rows") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise UserError("expected a list of rows or an object with a 'rows' list", file=str(path))
    found: list[tuple[int, dict[str, Any]]] = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise UserError(f"row {i} is not an object", file=str(path), line=i)
        if isinstance(data, dict) and "model" in data and "model" not in row:
            row = {**row, "model": data["model"]}
        found.append((i, row))
    return RowFile(unit="row", fields=None, rows=found)


def _sheet_of(modality: str, paradigm: str, where: str, path: Path, line: int) -> str:
    by_key: dict[str, str] = {m.casefold(): m for m in MODALITIES}
    mod = modality.strip().casefold()
    if mod == NLP_SHEET.casefold():
        if paradigm.strip().casefold() not in NLP_PARADIGMS | {"comprehension"}:
            raise UserError(
                f"{where}: NLP rows take no paradigm, got {paradigm!r}",
                file=str(path),
                line=line,
                field="paradigm",
            )
        return NLP_SHEET
    if mod not in by_key:
        raise UserError(
            f"{where}: modality {modality!r} is not one of {[*MODALITIES, NLP_SHEET]}",
            file=str(path),
            line=line,
            field="modality",
        )
    par = {p.casefold(): p for p in PARADIGMS}.get(paradigm.strip().casefold())
    if par is None:
        raise UserError(
            f"{where}: paradigm {paradigm!r} is not one of {list(PARADIGMS)}",
            file=str(path),
            line=line,
            field="paradigm",
        )
    return f"{by_key[mod]}-{par}"


def _task_index(specialist: list[TaskRow]) -> dict[tuple[str, str], TaskRow]:
    """Tasks by (sheet, task name as compared); the first of a repeated name wins, as a scan would find it."""
    index: dict[tuple[str, str], TaskRow] = {}
    for task in specialist:
        index.setdefault((task.sheet, key(task.task)), task)
    return index


def _check_fields(fields: list[str], path: Path) -> None:
    """The CSV header names every field, whether or not rows follow."""
    present = {key(f) for f in fields if f is not None}
    absent = [c for c in ROW_COLUMNS if c not in present]
    if absent:
        raise UserError(
            f"header lacks the fields {absent} (header: {fields})",
            file=str(path),
            line=1,
        )


def rows_table(found: RowFile, specialist: list[TaskRow], model: str | None, path: Path) -> ResultTable:
    """A model's results from ``modality, paradigm, task, metric, score`` rows; no rows is an error."""
    if found.fields is not None:
        _check_fields(found.fields, path)
    if not found.rows:
        raise UserError(f"no rows: expected rows with the fields {list(ROW_COLUMNS)}", file=str(path))
    label = found.unit
    selected: list[tuple[int, dict[str, Any]]] = []
    models: set[str] = set()
    for line, raw in found.rows:
        row = {key(str(k)): v for k, v in raw.items() if k is not None}
        absent = [c for c in ROW_COLUMNS if c not in row]
        if absent:
            raise UserError(f"{label} {line}: missing fields {absent}", file=str(path), line=line)
        name = str(row.get("model") or "").strip()
        if model is not None and name and key(name) != key(model):
            continue
        models.add(name)
        selected.append((line, row))
    named = sorted(m for m in models if m)
    if model is None and len(named) > 1:
        raise UserError(
            f"rows for several models {named}; choose one with --model", file=str(path), field="model"
        )
    if model is not None and not selected:
        raise UserError(f"no rows for model {model!r}", file=str(path), field="model")
    scores: dict[tuple[str, str], float | None] = {}
    sources: dict[tuple[str, str], ScoreSource] = {}
    tasks_by_name = _task_index(specialist)
    for line, row in selected:
        where = f"{label} {line}"
        sheet = _sheet_of(str(row["modality"] or ""), str(row["paradigm"] or ""), where, path, line)
        spec = tasks_by_name.get((sheet, key(str(row["task"] or ""))))
        if spec is None:
            raise UserError(
                f"{where}: task {row['task']!r} is not in sheet {sheet!r} of the specialist table",
                file=str(path),
                line=line,
                field="task",
            )
        metric = str(row["metric"] or "")
        if find_metric(metric) is None:
            raise UserError(
                f"{where}: {lookup_metric_message(metric)}", file=str(path), line=line, field="metric"
            )
        if not same_metric(metric, spec.metric):
            raise UserError(
                f"{where}: metric {metric!r} differs from the specialist table's {spec.metric!r} for "
                f"{spec.task!r}",
                file=str(path),
                line=line,
                field="metric",
            )
        if (sheet, spec.task) in scores:
            raise UserError(
                f"{where}: a second score for {sheet} / {spec.task!r}",
                file=str(path),
                line=line,
                field="task",
            )
        scores[(sheet, spec.task)] = number(row["score"], where, path, line, "score")
        sources[(sheet, spec.task)] = ScoreSource(file=str(path), line=line, unit=label, field="score")
    tasks = [
        t.model_copy(
            update={"score": scores.get((t.sheet, t.task)), "score_source": sources.get((t.sheet, t.task))}
        )
        for t in specialist
    ]
    return ResultTable(model=model or (named[0] if named else path.stem), tasks=tasks)
