"""``mmgauge compare RUN_A RUN_B [RUN_C ...]``: paired significance tests between runs (or answer files)."""

from __future__ import annotations

import sys
from typing import Annotated

from mmgauge.core.params import Arg, Opt


def compare_command(
    runs: Annotated[
        list[str],
        Arg(help="Run folders, MME results folders or answer tables, MMBench predictions files "
            "(mme=PATH / mmbench=PATH says which benchmark a file holds).", show_default=False),
    ],
    as_json: Annotated[bool, Opt("--json", help="Print the comparison as one JSON object.")] = False,
    headline: Annotated[
        bool, Opt("--headline", help="Only the headline numbers (no subtasks, abilities, types).")
    ] = False,
    parser: Annotated[
        str | None,
        Opt("--parser", help="How MME answer files are read: official (default) | words."),
    ] = None,
    judge: Annotated[
        str,
        Opt("--judge", help="Judge for MMBench predictions files: 'none' (rules only) or a spec."),
    ] = "none",
    literal_options: Annotated[
        bool,
        Opt("--literal-options", help="MMBench files: keep options reading None, NA, ... as text."),
    ] = False,
    level: Annotated[float, Opt("--level", help="Confidence level of the intervals.")] = 0.95,
    alpha: Annotated[float, Opt("--alpha", help="Significance level (after Holm).")] = 0.05,
    power: Annotated[
        float, Opt("--power", help="Power of the minimum detectable difference.")
    ] = 0.8,
    resamples: Annotated[int, Opt("--resamples", help="Paired bootstrap resamples.")] = 2000,
    seed: Annotated[int, Opt("--seed", help="Seed of the paired bootstraps.")] = 0,
) -> None:
    """Is run A really better than run B? Per benchmark and breakdown, on the items both answered: the
    difference with its interval, exact McNemar (accuracies) or a paired bootstrap (composite scores),
    Holm's correction with more than two runs, and the smallest difference the items could detect."""
    from rich.console import Console

    from mmgauge.api.compare import compare
    from mmgauge.comparison.text import render
    from mmgauge.core.errors import UserError

    if len(runs) < 2:
        raise UserError("give at least two runs to compare", field="RUNS")
    result = compare(runs, parser=parser, judge=judge,
                     literal_options=literal_options, level=level, alpha=alpha, power=power,
                     resamples=resamples, seed=seed)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    console = Console(highlight=False)
    if not console.is_terminal:  # piped into a file: rows unwrapped rather than cut to 80 columns
        console = Console(highlight=False, width=140)
    console.print(render(result, headline_only=headline))
