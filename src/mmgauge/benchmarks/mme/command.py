"""`mmgauge score mme` and `mmgauge export mme`: MME scores without a model (the benchmark's `score_command`
hook; the command line mounts it under `score`), and a run's answers as the official tool's results files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from mmgauge.core.errors import UserError
from mmgauge.core.json_output import print_json
from mmgauge.core.params import Arg, Opt

if TYPE_CHECKING:
    from rich.table import Table

    from mmgauge.benchmarks.mme.scoring import MMEResult


def score_command(
    path: Annotated[Path, Arg(help="Official results folder, run folder, or TSV/XLSX/JSONL.")],
    parser: Annotated[str | None, Opt("--parser", help="official (default) or words.")] = None,
    as_json: Annotated[bool, Opt("--json", help="One JSON object, unrounded.")] = False,
) -> None:
    """Score MME answers without a model, exactly as the official tool does."""
    from mmgauge.benchmarks.mme.answers import score_mme

    read_notes: list[str] = []
    result = score_mme(path, parser, notes=read_notes)
    notes = read_notes + _notes(result)
    if as_json:
        print_json(result.official_json())
        for note in notes:
            sys.stderr.write(f"note: {note}\n")
        return
    from rich.console import Console

    console = Console()
    console.print(_table(result))
    for note in notes:
        console.print(f"[yellow]note:[/yellow] {note}")


def export_command(
    run_dir: Annotated[Path, Arg(help="A run folder written by `mmgauge run`.")],
    out: Annotated[
        Path | None, Opt("--out", help="Folder to write <subtask>.txt files into.  [required]")
    ] = None,
    official: Annotated[Path | None, Opt("--official", hidden=True)] = None,
) -> None:
    """Write a run's MME answers as the official evaluation tool's results files.

    Each tab, CR or LF inside an answer or question becomes one space (the format cannot hold them; the
    official parser reads the same answer either way). Subtasks with failed requests are not written and are
    reported.
    """
    # `--official` is the option's first spelling; `export mmbench` (and every other command) says --out.
    if out is not None and official is not None and out != official:
        raise UserError("--out and --official name the same thing; give one", field="--out")
    official = out or official
    if official is None:
        raise UserError("missing option --out (the folder to write <subtask>.txt files into)", field="--out")
    from mmgauge.benchmarks.mme.official import BENCHMARK, write_results_folder
    from mmgauge.store.run_folder import RunFolder

    folder = RunFolder(run_dir)
    if not folder.has_records():
        raise UserError(f"no {folder.name_of('records')} in the run folder", file=str(run_dir))
    records = folder.records(BENCHMARK)
    report = write_results_folder(records, official)
    if not report.written:
        reasons = "; ".join(f"{k}: {v}" for k, v in report.skipped.items()) or "no MME records"
        raise UserError(f"nothing to export ({reasons})", file=str(run_dir))
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


def _table(result: MMEResult) -> Table:
    from rich.table import Table

    table = Table(title=f"MME (parser: {result.parser})")
    for column in ("subtask", "acc", "acc+", "score", "other", "yes %", "failed"):
        table.add_column(column, justify="left" if column == "subtask" else "right")
    for name, s in result.subtasks.items():
        # Percent, as every other view shows it; `--json` keeps the stored 0..1 fraction (`yes_ratio`).
        ratio = "-" if s.yes_ratio is None else f"{100 * s.yes_ratio:.1f}%"
        table.add_row(name, f"{s.acc:.2f}", f"{s.acc_plus:.2f}", f"{s.score:.2f}", str(s.other), ratio,
                      str(s.failed) + ("" if s.complete else " (incomplete)"))
    table.add_section()
    table.add_row("perception (95% CI)", "", "", result.perception.text(gap="  "))
    table.add_row("cognition (95% CI)", "", "", result.cognition.text(gap="  "))
    return table
