"""``mmgauge audit-judge RUN``: how far a judge agrees with the rules (and with another judge)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from mmgauge.core.params import Arg, Opt

if TYPE_CHECKING:
    from rich.table import Table

    from mmgauge.stats.agreement import Kappa
    from mmgauge.store.judge_audit import AgreementStudy


def audit_judge_command(
    run: Annotated[Path, Arg(help="A run folder written by `mmgauge run`.", show_default=False)],
    sample: Annotated[int, Opt("--sample", min=1, help="How many rule-read answers to re-read.")],
    judge: Annotated[
        str | None, Opt("--judge", help="Judge model spec (default: the judge the run used).")
    ] = None,
    against: Annotated[
        str | None, Opt("--against", help="A second judge, compared with the rules and the first.")
    ] = None,
    seed: Annotated[int, Opt("--seed", help="Seed of the sample.")] = 0,
    bench: Annotated[
        str | None, Opt("--bench", help="Only these benchmarks (comma separated).")
    ] = None,
    no_cache: Annotated[
        bool, Opt("--no-cache", help="Neither read nor write the response cache.")
    ] = False,
    cache_path: Annotated[Path | None, Opt("--cache-path", help="Response cache file.")] = None,
    as_json: Annotated[bool, Opt("--json", help="Print the study as one JSON object.")] = False,
) -> None:
    """Re-read N answers the rules read with the judge (as the run's judge pass would ask it), and report
    judge-vs-rule agreement: Cohen's kappa and raw agreement, each with its interval. The study is kept in
    the run folder (judge_agreement.json) and shown in the report."""
    from mmgauge.api.audit import audit_judge

    names = [n.strip().lower() for n in bench.split(",") if n.strip()] if bench else None
    result = audit_judge(run, judge, sample=sample, seed=seed, against=against, benchmarks=names,
                         cache=not no_cache, cache_path=cache_path)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    from rich.console import Console

    console = Console(highlight=False)
    console.print(study_table(result))
    console.print(f"kept in {run / 'judge_agreement.json'}")


def kappa_text(kappa: Kappa | None, raters: tuple[str, str] = ("first rater", "second rater")) -> str:
    if kappa is None:
        return "–"
    ci = kappa.agreement_ci
    agreement = (f"agree {100 * kappa.observed_agreement:.1f}% ({100 * ci.level:g}% CI "
                 f"{100 * ci.low:.1f}-{100 * ci.high:.1f})")
    if kappa.kappa is None or kappa.low is None or kappa.high is None:
        why = " and ".join(f"{name} said {single!r} to every item"
                           for name, single in zip(raters, kappa.single_category, strict=True) if single)
        return (f"kappa undefined ({why or 'one category'}: no agreement beyond chance to measure); "
                f"{agreement}")
    return (f"kappa {kappa.kappa:.3f} ({100 * kappa.level:g}% CI {kappa.low:.3f} to {kappa.high:.3f}); "
            f"{agreement}")


def study_table(result: AgreementStudy) -> Table:
    from rich.table import Table  # only when the table is shown: `mmgauge --help` mounts this module

    table = Table(title=f"Judge {result.judge} re-reading {result.overall.items} rule-read answers "
                        f"(seed {result.seed})", title_justify="left")
    table.add_column("answers")
    table.add_column("n", justify="right")
    table.add_column("judge vs rules")
    if result.against is not None:
        table.add_column(f"{result.against} vs rules")
        table.add_column(f"{result.against} vs judge")
    for name, agreement in [("all", result.overall), *result.per_benchmark.items()]:
        cells = [name, str(agreement.items), kappa_text(agreement.judge_vs_rules, ("the judge", "the rules"))]
        if result.against is not None:
            cells += [kappa_text(agreement.against_vs_rules, ("the second judge", "the rules")),
                      kappa_text(agreement.against_vs_judge, ("the second judge", "the judge"))]
        table.add_row(*cells)
    return table
