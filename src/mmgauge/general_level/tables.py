"""Reading General-Level tables: the specialist (SoTA) table and a model's results.

Results come in the release's spreadsheet form (the specialist table's sheets, with the scores in a column
named after the model) or as CSV/JSON rows ``modality, paradigm, task, metric, score`` (optionally ``model``;
read by :mod:`mmgauge.general_level.rows`). Each score carries where it was read
(``score_source``), so scoring can name the user's file. Every problem is a
:class:`~mmgauge.core.errors.UserError` naming the file, sheet, row and column.

An empty cell, or the release's ``∞``/``inf`` markers, means the model does not support the task.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError
from mmgauge.datasources.spreadsheets import damaged, open_workbook
from mmgauge.general_level.cells import key, lookup_metric_message, number, same_metric
from mmgauge.general_level.rows import read_csv_rows, read_json_rows, rows_table
from mmgauge.scoring.general_level.metrics import find_metric
from mmgauge.scoring.general_level.records import (
    NLP_SHEET,
    SHEETS,
    Modality,
    Paradigm,
    ResultTable,
    ScoreSource,
    TaskRow,
)

TASK_COLUMN = "Task Name"
METRIC_COLUMN = "Metrics"
SOTA_COLUMN = "SoTA Performance"
STANDARD_COLUMNS = frozenset({"no", "task name", "task short name", "metrics", "sota performance"})
IGNORED_SHEETS = frozenset({"level-scores"})  # the release writes its results there and skips it on reading


def default_sota_path() -> Path:
    """The specialist table shipped with the package (General-Level's ``sota_result.xlsx``)."""
    return Path(str(resources.files("mmgauge").joinpath("data/general_level/sota_result.xlsx")))


def shipped_tasks_path() -> Path:
    """The shipped table as `load_specialist_table` reads it, saved as JSON (`write_shipped_tasks`): reading
    it takes milliseconds where opening the workbook takes a third of a second. A test keeps the two equal."""
    return Path(str(resources.files("mmgauge").joinpath("data/general_level/sota_result.tasks.json")))


def write_shipped_tasks() -> Path:
    """Write `shipped_tasks_path()` from the shipped workbook (after the workbook changes)."""
    tasks = _read_specialist_workbook(default_sota_path())
    lines = [json.dumps(task.model_dump(mode="json", exclude={"score", "score_source"}), ensure_ascii=False)
             for task in tasks]
    shipped_tasks_path().write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")
    return shipped_tasks_path()


def _split_sheet(sheet: str) -> tuple[Modality | None, Paradigm | None]:
    if sheet == NLP_SHEET:
        return None, None
    modality, paradigm = sheet.split("-")
    return modality, paradigm  # type: ignore[return-value]  # sheet is one of SHEETS


def _column_letter(index: int) -> str:
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


class _Sheet:
    """One worksheet: its stripped header and its non-empty data rows with their 1-based row numbers."""

    def __init__(self, name: str, rows: Sequence[Sequence[Any]]) -> None:
        self.name = name
        header = rows[0] if rows else ()
        self.header = [str(h).strip() if h is not None else "" for h in header]
        self.rows = [(i + 1, list(r)) for i, r in enumerate(rows) if i > 0 and any(c is not None for c in r)]

    def column(self, name: str, path: Path) -> int:
        for i, h in enumerate(self.header):
            if key(h) == key(name):
                return i
        raise UserError(f"sheet {self.name!r} has no column {name!r} (header: {self.header})", file=str(path))

    def cell(self, row: Sequence[Any], index: int) -> Any:
        return row[index] if index < len(row) else None


def _read_workbook(path: Path) -> dict[str, _Sheet]:
    book = open_workbook(path)
    try:
        return {ws.title: _Sheet(ws.title, list(ws.iter_rows(values_only=True))) for ws in book.worksheets}
    except Exception as error:  # read-only sheets are parsed lazily: a damaged one fails only here
        raise damaged(path, error) from None
    finally:
        book.close()


def load_specialist_table(path: Path | None = None) -> list[TaskRow]:
    """The specialist table's tasks (``score`` None) in sheet order; by default the shipped copy."""
    if path is None:
        data = json.loads(shipped_tasks_path().read_text(encoding="utf-8"))
        return [TaskRow(**task, score=None) for task in data]
    return _read_specialist_workbook(path)


def _read_specialist_workbook(path: Path) -> list[TaskRow]:
    sheets = _read_workbook(path)
    missing = [s for s in SHEETS if s not in sheets]
    extra = [s for s in sheets if s not in SHEETS and s.casefold() not in IGNORED_SHEETS]
    if missing or extra:
        raise UserError(
            f"specialist table needs exactly the sheets {list(SHEETS)}; missing {missing}, "
            f"unexpected {extra}",
            file=str(path),
        )
    tasks: list[TaskRow] = []
    for name in SHEETS:
        sheet = sheets[name]
        c_task, c_metric, c_sota = (sheet.column(c, path) for c in (TASK_COLUMN, METRIC_COLUMN, SOTA_COLUMN))
        modality, paradigm = _split_sheet(name)
        seen: set[str] = set()
        for line, row in sheet.rows:
            task = str(sheet.cell(row, c_task) or "").strip()
            metric = str(sheet.cell(row, c_metric) or "").strip()
            where = f"sheet {name!r}"
            if not task:
                raise UserError(f"{where}: empty task name", file=str(path), line=line, field=TASK_COLUMN)
            if key(task) in seen:
                raise UserError(
                    f"{where}: task {task!r} appears twice", file=str(path), line=line, field=TASK_COLUMN
                )
            seen.add(key(task))
            if find_metric(metric) is None:
                raise UserError(
                    f"{where}: {lookup_metric_message(metric)}",
                    file=str(path),
                    line=line,
                    field=METRIC_COLUMN,
                )
            sota = number(sheet.cell(row, c_sota), where, path, line, SOTA_COLUMN)
            if sota is None:
                raise UserError(
                    f"{where}: task {task!r} has no SoTA value", file=str(path), line=line, field=SOTA_COLUMN
                )
            tasks.append(
                TaskRow(
                    sheet=name,
                    row=line,
                    modality=modality,
                    paradigm=paradigm,
                    task=task,
                    metric=metric,
                    sota=sota,
                    score=None,
                )
            )
    return tasks


def _model_columns(sheets: dict[str, _Sheet], model: str | None, path: Path) -> dict[str, int]:
    """Each sheet's model column: the one named ``model`` (any case), or else the only non-standard one."""
    if model is None:
        headers = [h for s in sheets.values() for h in s.header]
        names = {key(h): h for h in headers if h and key(h) not in STANDARD_COLUMNS}
        if not names:
            raise UserError("no model column: every column is one of the template's", file=str(path))
        if len(names) > 1:
            raise UserError(
                f"several model columns {sorted(names.values())}; choose one with --model", file=str(path)
            )
        model = next(iter(names.values()))
    chosen: dict[str, int] = {}
    for name, sheet in sheets.items():
        hits = [i for i, h in enumerate(sheet.header) if key(h) == key(model)]
        if not hits:
            raise UserError(
                f"sheet {name!r} has no column for model {model!r} (header: {sheet.header})",
                file=str(path),
                field=model,
            )
        if len(hits) > 1:
            letters = " and ".join(_column_letter(i) for i in hits)
            raise UserError(
                f"sheet {name!r} has two columns for model {model!r} (columns {letters})",
                file=str(path),
                line=1,
                field=model,
            )
        chosen[name] = hits[0]
    return chosen


def _read_xlsx_results(path: Path, specialist: list[TaskRow], model: str | None) -> ResultTable:
    sheets = {n: s for n, s in _read_workbook(path).items() if n.casefold() not in IGNORED_SHEETS}
    expected = list(dict.fromkeys(t.sheet for t in specialist))
    missing = [s for s in expected if s not in sheets]
    extra = [s for s in sheets if s not in expected]
    if missing or extra:
        raise UserError(
            f"sheets do not match the specialist table: missing {missing}, not in the specialist "
            f"table {extra}",
            file=str(path),
        )
    columns = _model_columns(sheets, model, path)
    model_name = sheets[expected[0]].header[columns[expected[0]]]
    scores: dict[tuple[str, str], float | None] = {}
    sources: dict[tuple[str, str], ScoreSource] = {}
    for name in expected:
        sheet = sheets[name]
        c_task, c_metric = sheet.column(TASK_COLUMN, path), sheet.column(METRIC_COLUMN, path)
        c_model = columns[name]
        by_task = {key(t.task): t for t in specialist if t.sheet == name}
        field = f"{sheet.header[c_model]} (column {_column_letter(c_model)})"
        for line, row in sheet.rows:
            where = f"sheet {name!r}"
            task = str(sheet.cell(row, c_task) or "").strip()
            spec = by_task.get(key(task))
            if spec is None:
                raise UserError(
                    f"{where}: task {task!r} is not in this sheet of the specialist table",
                    file=str(path),
                    line=line,
                    field=TASK_COLUMN,
                )
            if (name, spec.task) in scores:
                raise UserError(
                    f"{where}: task {task!r} appears twice", file=str(path), line=line, field=TASK_COLUMN
                )
            metric = sheet.cell(row, c_metric)
            if metric is not None and str(metric).strip() and not same_metric(str(metric), spec.metric):
                raise UserError(
                    f"{where}: metric {metric!r} differs from the specialist table's {spec.metric!r}",
                    file=str(path),
                    line=line,
                    field=METRIC_COLUMN,
                )
            scores[(name, spec.task)] = number(sheet.cell(row, c_model), where, path, line, field)
            sources[(name, spec.task)] = ScoreSource(
                file=str(path), sheet=name, line=line, field=sheet.header[c_model]
            )
        absent = [t.task for t in by_task.values() if (name, t.task) not in scores]
        if absent:
            raise UserError(f"sheet {name!r} lacks tasks of the specialist table: {absent}", file=str(path))
    tasks = [
        t.model_copy(update={"score": scores[(t.sheet, t.task)], "score_source": sources[(t.sheet, t.task)]})
        for t in specialist
    ]
    return ResultTable(model=model_name, tasks=tasks)


def load_results(path: Path, specialist: list[TaskRow], model: str | None = None) -> ResultTable:
    """A model's results against the specialist table, from ``.xlsx``, ``.csv`` or ``.json``."""
    if not path.is_file():
        raise UserError("no such file", file=str(path))
    suffix = path.suffix.casefold()
    if suffix in {".xlsx", ".xlsm"}:
        return _read_xlsx_results(path, specialist, model)
    if suffix == ".csv":
        return rows_table(read_csv_rows(path, model), specialist, model, path)
    if suffix == ".json":
        return rows_table(read_json_rows(path), specialist, model, path)
    raise UserError(f"unsupported results format {path.suffix!r}: use .xlsx, .csv or .json", file=str(path))
