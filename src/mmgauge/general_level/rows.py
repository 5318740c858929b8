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


def read_csv_rows(path: Path) -> RowFile:
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


def _find_task(specialist: list[TaskRow], sheet: str, task: str) -> TaskRow | None:
    return next((t for t in specialist if t.sheet == sheet and key(t.task) == key(task)), None)


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
    for line, row in selected:
        where = f"{label} {line}"
        sheet = _sheet_of(str(row["modality"] or ""), str(row["paradigm"] or ""), where, path, line)
        spec = _find_task(specialist, sheet, str(row["task"] or ""))
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
