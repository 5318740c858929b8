"""Every place MME answers come from, read into `MMEItem`s: run folders, record files, the official tool's
results folders, and prediction tables (TSV/XLSX/JSONL with a `prediction` column). `load_columns` gives
the column form scoring uses, reading large well-formed results folders column-wise."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.benchmarks.mme.official import (
    Locate,
    check_results_folder,
    read_prediction_table,
    read_records,
    read_results_folder,
    records_to_items,
    results_files,
    results_folder_extras,
)
from mmgauge.benchmarks.mme.results_columns import read_results_columns
from mmgauge.benchmarks.mme.scoring import MMEColumns, MMEItem, MMEResult, columns_of, score_mme_columns
from mmgauge.core.errors import UserError
from mmgauge.store.run_folder import RunFolder
from mmgauge.store.runlog import is_record_file

if TYPE_CHECKING:
    from mmgauge.core.types import SampleRecord


def load_items(path: Path, parser: str | None, notes: list[str] | None = None) -> tuple[list[MMEItem], str]:
    """Items from any MME answer source, and the parser label the result carries.

    Run records keep the extraction made during the run (judge included) unless `parser` asks to re-read
    the raw answers; files of raw answers are read with `parser` (default `official`). A run folder is read
    after its judge pass (as logged when it was not scored). What is worth saying goes to `notes`.
    """
    notes = [] if notes is None else notes
    folder = RunFolder(path)
    if path.is_dir() and folder.has_records():
        if not folder.has_scored():
            notes.append(f"no {folder.name_of('scored')} in the run folder (an unfinished run?): read "
                         f"{folder.name_of('records')}, the answers before any judge pass")
        return _record_items(folder.records("mme"), parser, str(path), lambda r: folder.line_of(r.key))
    if path.is_file() and path.suffix.lower() == ".jsonl" and is_record_file(path):
        from mmgauge.store.runlog import record_line

        return _record_items(read_records(path), parser, str(path),
                             lambda r: (str(path), record_line(path, r.key)))
    chosen = parser or "official"
    if path.is_dir():
        items = read_results_folder(path, chosen)
        extras = results_folder_extras(path)
        if extras:
            notes.append(f"not read (not <subtask>.txt results files): {', '.join(extras)}")
        return items, chosen
    if path.is_file():
        return read_prediction_table(path, chosen), chosen
    raise UserError("no such file or folder", file=str(path))


def load_columns(path: Path, parser: str | None, notes: list[str] | None = None) -> tuple[MMEColumns, str]:
    """`load_items` in column form. A results folder is read column-wise (`results_columns`); where that
    reader finds it irregular, the line reader names the problem, or, finding none, the files are read
    column-wise again as the line reader splits their lines."""
    if path.is_dir() and not RunFolder(path).has_records():
        chosen = parser or "official"
        files = results_files(path)
        columns = read_results_columns(files, chosen)
        if columns is None:
            check_results_folder(path)
            columns = read_results_columns(files, chosen, as_lines=True)
        if columns is None:
            raise UserError("the results files could not be read as columns", file=str(path))
        extras = results_folder_extras(path)
        if extras and notes is not None:
            notes.append(f"not read (not <subtask>.txt results files): {', '.join(extras)}")
        return columns, chosen
    items, label = load_items(path, parser, notes)
    return columns_of(items), label


def _record_items(records: list[SampleRecord], parser: str | None, source: str,
                  where: Locate) -> tuple[list[MMEItem], str]:
    from mmgauge.extraction.yesno import parse_yes_no_many

    if not records:
        raise UserError("no MME records in this file", file=source)
    if parser is None:
        methods = {r.extraction.method.split("-")[0] for r in records if r.extraction is not None}
        return records_to_items(records, "official", where), "+".join(sorted(methods)) or "official"
    answered = [r for r in records if r.response.text is not None]
    read = iter(parse_yes_no_many([r.response.text or "" for r in answered], parser))
    fresh = [r.model_copy(update={"extraction": next(read)}) if r.response.text is not None else r
             for r in records]
    return records_to_items(fresh, parser, where), parser


def score_mme(source: str | Path, parser: str | None = None, *, notes: list[str] | None = None) -> MMEResult:
    """MME scores of an official results folder, a run folder, or a TSV/XLSX/JSONL of answers (the library's
    `mmgauge.score_mme`, and `mmgauge score mme`).

    `parser`: `official` (the default for raw answers) or `words`; a run folder keeps its run's reading
    unless a parser is given. Notes worth showing (files left out, a run not scored) go to `notes`.
    """
    from mmgauge.extraction.parser_names import PARSERS

    if parser is not None and parser not in PARSERS:
        raise UserError(f"unknown parser '{parser}'; choose one of: {', '.join(PARSERS)}", field="--parser")
    columns, label = load_columns(Path(source), parser, notes)
    return score_mme_columns(columns, parser=label)
