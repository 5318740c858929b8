"""`mmgauge score mmbench` (the benchmark's `score_command` hook, mounted under `score`) and `mmgauge export
mmbench` (named in the command line's table).

Heavy modules (pandas, the benchmark, backends) are imported inside the commands, so that other commands do
not pay for them at start-up.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from mmgauge.core.errors import UserError
from mmgauge.core.json_output import print_json
from mmgauge.core.params import Arg, Opt

if TYPE_CHECKING:
    from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
    from mmgauge.extraction.judge import Judge


def score_command(
    pred_file: Annotated[Path, Arg(
        help="TSV or XLSX (VLMEvalKit, lmms-eval) with the dataset columns plus `prediction`, or "
        "lmms-eval's --log_samples JSONL.")],
    judge: Annotated[str, Opt("--judge", help="'none' (exact matching) or a judge model spec.")] = "none",
    json_output: Annotated[bool, Opt("--json", help="Print the scores as one JSON object.")] = False,
    seed: Annotated[int, Opt("--seed", help="Seed of the bootstrap interval and of --random-fallback.")] = 0,
    random_fallback: Annotated[bool, Opt(
        "--random-fallback", help="Give unresolved answers a seeded random letter (off by default).")
    ] = False,
    literal_options: Annotated[bool, Opt(
        "--literal-options", help="Keep options reading None, NA, null, ... as text (VLMEvalKit, "
        "reading the file with pandas, drops them; so does this command by default).")] = False,
) -> None:
    """Score MMBench predictions with CircularEval, as VLMEvalKit scores the file."""
    from mmgauge.benchmarks.mmbench.scores import score_mmbench
    from mmgauge.extraction.judge_spec import judge_for

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
            sys.stderr.write(f"note: {line}\n")
        payload = {"overall": result.overall, "l2": result.l2, "category": result.category,
                   "vanilla": result.vanilla, "groups": result.groups, "extraction": result.extraction}
        print_json(payload, ensure_ascii=False)
        return
    sys.stdout.write(_text(result, the_judge) + "\n")


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


def export_command(
    data: Annotated[Path, Arg(help="The MMBench TSV the run used.")],
    records: Annotated[Path, Arg(help="The run folder (or a file of its records).")],
    out: Annotated[Path, Opt("--out", help="The xlsx to write (original columns plus `prediction`).")],
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
    sys.stdout.write(f"wrote {written.rows} rows to {written.path}; score it with `mmgauge score mmbench` "
                     "once it has the answer column (the MMBench evaluation server was retired; the test "
                     "answers are public)\n")
    if written.missing:
        shown = ", ".join(str(index) for index in written.missing[:10])
        sys.stderr.write(f"note: {len(written.missing)} rows have no prediction (left empty): {shown}\n")
