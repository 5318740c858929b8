"""`mmgauge score mmbench` and `mmgauge export mmbench`.

Heavy modules (pandas, the benchmark, backends) are imported inside the commands, so that other commands do
not pay for them at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from mmgauge.cli.json_output import print_json
from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    from mmgauge.extraction.judge import Judge
    from mmgauge.scoring.mmbench import MMBenchResult


def register(score_app: typer.Typer, export_app: typer.Typer) -> None:
    score_app.command("mmbench")(score_mmbench)
    export_app.command("mmbench")(export_mmbench)


def score_mmbench(
    pred_file: Path = typer.Argument(
        ..., help="TSV or XLSX (VLMEvalKit, lmms-eval) with the dataset columns plus `prediction`, or "
        "lmms-eval's --log_samples JSONL."),
    judge: str = typer.Option("none", "--judge", help="'none' (exact matching) or a judge model spec."),
    json_output: bool = typer.Option(False, "--json", help="Print the scores as one JSON object."),
    seed: int = typer.Option(0, "--seed", help="Seed of the bootstrap interval and of --random-fallback."),
    random_fallback: bool = typer.Option(
        False, "--random-fallback", help="Give unresolved answers a seeded random letter (off by default)."
    ),
    literal_options: bool = typer.Option(
        False, "--literal-options", help="Keep options reading None, NA, null, ... as text (VLMEvalKit, "
        "reading the file with pandas, drops them; so does this command by default)."
    ),
) -> None:
    """Score MMBench predictions with CircularEval, as VLMEvalKit scores the file."""
    from mmgauge.api.scores import judge_for, score_mmbench

    the_judge = judge_for(judge)
    try:
        result = score_mmbench(pred_file, the_judge, seed=seed, random_fallback=random_fallback,
                               literal_options=literal_options)
    finally:
        if the_judge is not None:
            import asyncio

            asyncio.run(the_judge.backend.aclose())
    if json_output:
        for line in result.headline():
            typer.echo(f"note: {line}", err=True)
        payload = {"overall": result.overall, "l2": result.l2, "category": result.category,
                   "vanilla": result.vanilla, "groups": result.groups, "extraction": result.extraction}
        print_json(payload, ensure_ascii=False)
        return
    typer.echo(_text(result, the_judge))


def _text(result: MMBenchResult, judge: Judge | None) -> str:
    overall = f"  ({result.overall_ci.text(100)})" if result.overall_ci is not None else ""
    vanilla = f"{result.vanilla_ci.text(100)}; " if result.vanilla_ci is not None else ""
    lines = [
        f"MMBench (CircularEval) over {result.n_groups} questions, {result.rows} rows",
        f"  overall   {result.overall_pct:6.2f}%{overall}",
        f"  vanilla   {result.vanilla_pct:6.2f}%  ({vanilla}first copy only)",
    ]
    tables = (("L2", result.l2_pct), ("category", result.category_pct), ("split", result.split_pct))
    for title, values in tables:
        if values:
            lines.append(f"  by {title}:")
            lines.extend(f"    {name:<42} {pct:6.2f}%" for name, pct in values.items())
    lines.append("  extraction: " + ", ".join(f"{k} {v}" for k, v in sorted(result.extraction.items())))
    if judge is not None:
        lines.append(f"  judge calls: {judge.calls}")
    lines.extend(f"  note: {line}" for line in result.headline())
    return "\n".join(lines)


def export_mmbench(
    data: Path = typer.Argument(..., help="The MMBench TSV the run used."),
    records: Path = typer.Argument(..., help="The run folder (or a file of its records)."),
    out: Path = typer.Option(..., "--out", help="The xlsx to write (original columns plus `prediction`)."),
) -> None:
    """Write a run's answers as a VLMEvalKit-form predictions xlsx (the retired evaluation server's form)."""
    from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
    from mmgauge.store.run_folder import RunFolder
    from mmgauge.store.runlog import read_records

    if records.is_dir():
        loaded = RunFolder(records).require().records(MMBenchBenchmark.name)
    elif records.is_file():
        loaded = [r for r in read_records(records) if r.benchmark == MMBenchBenchmark.name]
    else:
        raise UserError("no such run folder or records file", file=str(records))
    written = MMBenchBenchmark().write_submission(loaded, data, out)
    typer.echo(f"wrote {written.rows} rows to {written.path}; score it with `mmgauge score mmbench` once it "
               "has the answer column (the MMBench evaluation server was retired; the test answers are "
               "public)")
    if written.missing:
        shown = ", ".join(str(index) for index in written.missing[:10])
        typer.echo(f"note: {len(written.missing)} rows have no prediction (left empty): {shown}", err=True)
