"""`mmgauge score mme` and `mmgauge export mme`: MME scores without a model; official-tool results files."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from mmgauge.benchmarks.mme.official import (
    is_record_file,
    read_prediction_table,
    read_records,
    read_results_folder,
    records_to_items,
    results_folder_extras,
    write_results_folder,
)
from mmgauge.core.errors import UserError
from mmgauge.extraction.yesno import PARSERS, parse_yes_no
from mmgauge.scoring.mme import MMEItem, MMEResult, Total, score_mme

RUN_RECORDS = "samples.jsonl"
#: The run's records after the judge pass (what its results.json was scored from).
RUN_SCORED = "scored.jsonl"


def register(score_app: typer.Typer, export_app: typer.Typer) -> None:
    score_app.command("mme")(score_command)
    export_app.command("mme")(export_command)


def load_items(path: Path, parser: str | None, notes: list[str] | None = None) -> tuple[list[MMEItem], str]:
    """Items from any MME answer source, and the parser label the result carries.

    Run records keep the extraction made during the run (judge included) unless `parser` asks to re-read
    the raw answers; files of raw answers are read with `parser` (default `official`). A run folder is read
    from scored.jsonl (after the judge), else from samples.jsonl. What is worth saying goes to `notes`.
    """
    notes = [] if notes is None else notes
    if path.is_dir() and (path / RUN_SCORED).is_file():
        path = path / RUN_SCORED
    elif path.is_dir() and (path / RUN_RECORDS).is_file():
        notes.append(f"no {RUN_SCORED} in the run folder (an unfinished run?): read {RUN_RECORDS}, the "
                     "answers before any judge pass")
        path = path / RUN_RECORDS
    if path.is_file() and path.suffix.lower() == ".jsonl" and is_record_file(path):
        records = read_records(path)
        if not records:
            raise UserError("no MME records in this file", file=str(path))
        if parser is None:
            methods = {r.extraction.method.split("-")[0] for r in records if r.extraction is not None}
            return records_to_items(records, "official"), "+".join(sorted(methods)) or "official"
        fresh = [r.model_copy(update={"extraction": parse_yes_no(r.response.text, parser)})
                 if r.response.text is not None else r for r in records]
        return records_to_items(fresh, parser), parser
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


def score_command(
    path: Annotated[Path, typer.Argument(help="Official results folder, run folder, or TSV/XLSX/JSONL.")],
    parser: Annotated[str | None, typer.Option("--parser", help="official (default) or words.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object, unrounded.")] = False,
) -> None:
    """Score MME answers without a model, exactly as the official tool does."""
    if parser is not None and parser not in PARSERS:
        raise UserError(f"unknown parser '{parser}'; choose one of: {', '.join(PARSERS)}", field="--parser")
    read_notes: list[str] = []
    items, label = load_items(path, parser, read_notes)
    result = score_mme(items, parser=label)
    notes = read_notes + _notes(result)
    if as_json:
        sys.stdout.write(json.dumps(result.official_json()) + "\n")
        for note in notes:
            sys.stderr.write(f"note: {note}\n")
        return
    console = Console()
    console.print(_table(result))
    for note in notes:
        console.print(f"[yellow]note:[/yellow] {note}")


def export_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder holding samples.jsonl.")],
    official: Annotated[Path, typer.Option("--official", help="Folder to write <subtask>.txt files into.")],
) -> None:
    """Write a run's MME answers as the official evaluation tool's results files.

    Each tab, CR or LF inside an answer or question becomes one space (the format cannot hold them; the
    official parser reads the same answer either way). Subtasks with failed requests are not written and are
    reported.
    """
    source = run_dir / RUN_RECORDS
    if not source.is_file():
        raise UserError(f"no {RUN_RECORDS} in the run folder", file=str(run_dir))
    records = read_records(source)
    report = write_results_folder(records, official)
    if not report.written:
        reasons = "; ".join(f"{k}: {v}" for k, v in report.skipped.items()) or "no MME records"
        raise UserError(f"nothing to export ({reasons})", file=str(source))
    for subtask, lines in report.written.items():
        sys.stdout.write(f"{official / (subtask + '.txt')}\t{lines} lines\n")
    for subtask, reason in report.skipped.items():
        sys.stderr.write(f"skipped {subtask}: {reason}; the official tool needs every answer\n")


def _notes(result: MMEResult) -> list[str]:
    notes = [f"parser: {result.parser}"]
    for label, total in (("perception", result.perception), ("cognition", result.cognition)):
        if total.missing:
            notes.append(f"{label} is partial: missing {', '.join(total.missing)}")
        if total.incomplete:
            notes.append(f"{label} is partial: incomplete {', '.join(total.incomplete)}")
    if result.failed:
        notes.append(f"{result.failed} question(s) without an answer (failed requests) were not scored")
    if result.other:
        notes.append(f"{result.other} answer(s) read as neither yes nor no were counted wrong")
    return notes


def _total_cell(total: Total) -> str:
    ci = "" if total.ci is None else f"  ({total.ci.text()})"
    return f"{total.score:.2f} / {total.max:.0f}{ci}{' partial' if total.partial else ''}"


def _table(result: MMEResult) -> Table:
    table = Table(title=f"MME (parser: {result.parser})")
    for column in ("subtask", "acc", "acc+", "score", "other", "yes-ratio", "failed"):
        table.add_column(column, justify="left" if column == "subtask" else "right")
    for name, s in result.subtasks.items():
        table.add_row(name, f"{s.acc:.2f}", f"{s.acc_plus:.2f}", f"{s.score:.2f}", str(s.other),
                      f"{s.yes_ratio:.2f}", str(s.failed) + ("" if s.complete else " (incomplete)"))
    table.add_section()
    table.add_row("perception (95% CI)", "", "", _total_cell(result.perception))
    table.add_row("cognition (95% CI)", "", "", _total_cell(result.cognition))
    return table
