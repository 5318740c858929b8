"""`mmgauge run`: evaluate a model on one or more benchmarks, resumably."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from mmgauge.cli.export_table import (
    LogOption,
    WandbEntityOption,
    WandbProjectOption,
    log_results,
    require_log_targets,
)
from mmgauge.cli.log_level import LogLevel
from mmgauge.core.errors import UserError
from mmgauge.core.params import Opt

if TYPE_CHECKING:
    from rich.console import Console

    from mmgauge.store.results import RunResults

MODEL_HELP = (
    "Model spec: embedded (default, offline) | openai:MODEL@URL[|URL2...] | anthropic:MODEL[@URL] | "
    "gemini:MODEL[@URL] | hf:PATH_OR_REPO_ID | vllm:PATH_OR_REPO_ID | replay:FILE | mock[:TEXT] | "
    "a plug-in's NAME:... | a .yaml/.json model config (see `mmgauge list`)."
)


def run(
    config: Annotated[Path | None, Opt(
        "--config", "-c",
        help="Run configuration: a YAML/JSON file of the settings below (`mmgauge schema run-config`), "
        "or a finished run's manifest or folder to ask its requests again. Flags given override it.",
    )] = None,
    model: Annotated[str, Opt("--model", "-m", help=MODEL_HELP)] = "embedded",
    bench: Annotated[str | None, Opt(
        "--bench", "-b",
        help="Benchmark name(s), comma separated. Default: every benchmark, on its built-in sample data.",
    )] = None,
    data: Annotated[list[str], Opt(
        "--data",
        help="Benchmark data: a path, a VLMEvalKit name (MMBench_DEV_EN, CCBench, MME...) in $LMUData, "
        "or hf:ORG/NAME[@REV][/CONFIG[/SPLIT]] in the local Hugging Face cache (nothing is downloaded); "
        "NAME=DATA when running several benchmarks. Default: the built-in sample.",
    )] = [],  # noqa: B006 (never changed: Click passes a new list)
    out: Annotated[Path, Opt("--out", "-o", help="Run folder; an existing one is resumed.")] = Path(
        "runs/latest"),
    limit: Annotated[int | None, Opt("--limit", min=1,
                                     help="Only the first N samples per benchmark.")] = None,
    judge: Annotated[str | None, Opt(
        "--judge",
        help="Judge model spec for unresolved answers, or 'none' (default: the run folder's judge).",
    )] = None,
    temperature: Annotated[float, Opt("--temperature", min=0.0)] = 0.0,
    max_tokens: Annotated[int, Opt("--max-tokens", min=1)] = 512,
    seed: Annotated[int, Opt("--seed")] = 0,
    system_prompt: Annotated[str | None, Opt("--system-prompt")] = None,
    concurrency: Annotated[int | None, Opt(
        "--concurrency", min=1,
        help="Requests in flight per endpoint (openai: the ceiling of each endpoint's adaptive limit; "
        "default 16).",
    )] = None,
    batch_size: Annotated[int | None, Opt("--batch-size", min=1,
                                          help="Batch size (hf, embedded, vllm).")] = None,
    timeout: Annotated[float | None, Opt("--timeout", min=0.001, help="Seconds per HTTP request.")] = None,
    max_retries: Annotated[int | None, Opt("--max-retries", min=0)] = None,
    api_key_env: Annotated[str | None, Opt(
        "--api-key-env",
        help="Name of the environment variable holding the API key (the key itself is never stored).",
    )] = None,
    judge_api_key_env: Annotated[str | None, Opt(
        "--judge-api-key-env",
        help="Environment variable holding the judge's API key (default: --api-key-env when the judge "
        "is on the model's host).",
    )] = None,
    parser: Annotated[str | None, Opt(
        "--parser", help="Answer parser where a benchmark offers several (MME: official | words).",
    )] = None,
    prompt: Annotated[str | None, Opt(
        "--prompt",
        help="Prompt wording: paper (default) | vlmevalkit | lmms-eval | a template file "
        "(per benchmark with --set BENCH.prompt=...; see `mmgauge list`).",
    )] = None,
    rounds: Annotated[int, Opt("--rounds", min=1, help="Ask every question of every benchmark run N times "
                                                       "(one benchmark's: --set NAME.rounds=N).")] = 1,
    language: Annotated[str | None, Opt("--language", help="Languages, comma separated (M3GIA).")] = None,
    prompt_language: Annotated[str | None, Opt("--prompt-language", help="Prompt template language.")] = None,
    shuffle_options: Annotated[bool, Opt("--shuffle-options", help="Shuffle options per round.")] = False,
    random_fallback: Annotated[bool, Opt(
        "--random-fallback", help="Give unresolved answers a seeded random letter (off: they count wrong).",
    )] = False,
    literal_options: Annotated[bool, Opt(
        "--literal-options",
        help="MMBench with --prompt vlmevalkit: keep options reading None, NA, null, ... as text "
        "(VLMEvalKit, reading the TSV with pandas, leaves them out; so does this command by default).",
    )] = False,
    cache_path: Annotated[Path | None, Opt("--cache-path", help="Response cache file.")] = None,
    cache_namespace: Annotated[str | None, Opt(
        "--cache-namespace",
        help="Part of every cache key: change it when the model changed in a way the endpoint does not "
        "report (same name and path, new weights).",
    )] = None,
    keep_reasoning: Annotated[bool, Opt(
        "--keep-reasoning",
        help="Read answers with the model's <think>...</think> reasoning left in (default: removed "
        "first; the raw answer is always kept in the record).",
    )] = False,
    accept_empty: Annotated[bool, Opt(
        "--accept-empty", help="Score empty answers (default: an empty answer is a failed request)",
    )] = False,
    no_cache: Annotated[bool, Opt("--no-cache", help="Neither read nor write the response cache.")] = False,
    force_cache: Annotated[bool, Opt(
        "--force-cache", help="Cache even sampled (temperature > 0) responses.",
    )] = False,
    executor: Annotated[str, Opt(
        "--executor",
        help="Where requests run: local (this process) | ray (Ray actors, each with its own backend; "
        "pip install 'mmgauge[ray]').",
    )] = "local",
    ray_address: Annotated[str | None, Opt(
        "--ray-address", help="Ray cluster to join (e.g. HOST:6379); default: start a local one.",
    )] = None,
    ray_workers: Annotated[int | None, Opt(
        "--ray-workers", min=1, help="Ray workers, e.g. one per GPU or per endpoint (default 2).",
    )] = None,
    ray_gpus_per_worker: Annotated[float | None, Opt(
        "--ray-gpus-per-worker", min=0.0,
        help="GPUs each Ray worker reserves (default: what the model needs, vllm: tensor x pipeline "
        "parallel size; else 0).",
    )] = None,
    ray_inline_images: Annotated[bool, Opt(
        "--ray-inline-images",
        help="Send image files to Ray workers as base64 (default: as paths, which every node must read).",
    )] = False,
    progress_every: Annotated[float, Opt(
        "--progress-every", min=0.05,
        help="Without a terminal (a batch job's log), print a progress line every this many seconds.",
    )] = 10.0,
    log: LogOption = None,
    wandb_project: WandbProjectOption = "mmgauge",
    wandb_entity: WandbEntityOption = None,
    settings: Annotated[list[str], Opt(
        "--set", help="A benchmark option, BENCHMARK.OPTION=VALUE (repeatable; see `mmgauge list`).",
    )] = [],  # noqa: B006 (never changed: Click passes a new list)
    log_file: Annotated[Path | None, Opt(
        "--log-file",
        help="Append the run's DEBUG log here (default: mmgauge.log in the run folder; 'none': no file).",
    )] = None,
    verbose: Annotated[int, Opt("--verbose", "-v", count=True, show_default=False,
                                help="As `mmgauge -v`.")] = 0,
    quiet: Annotated[int, Opt("--quiet", "-q", count=True, show_default=False,
                              help="As `mmgauge -q`: no progress, status or summary tables.")] = 0,
    log_level: Annotated[LogLevel | None, Opt(
        "--log-level", case_sensitive=False, help="As `mmgauge --log-level`.",
    )] = None,
) -> None:
    """Evaluate a model. Re-running the same command into the same --out resumes and retries failures."""
    import asyncio
    import logging

    import click
    from rich.console import Console

    from mmgauge.api.evaluate import evaluate_async
    from mmgauge.api.run_config import merge_run_config, read_run_config, request_from_fields
    from mmgauge.cli.logs import LoggedProgress, attach_run_log, configure
    from mmgauge.cli.progress import progress_for
    from mmgauge.cli.run_flags import given_flags
    from mmgauge.runner.progress import NullProgress
    from mmgauge.store.run_folder import RunFolder

    ctx = click.get_current_context()
    obj = ctx.obj or {}
    shown, hushed, level = obj.get("logging", (0, 0, None))
    verbose, quiet, log_level = shown + verbose, hushed + quiet, log_level or level
    configure(verbose, quiet, log_level)
    console = Console(quiet=quiet > 0)  # -q: no progress, status or tables; errors still reach stderr
    require_log_targets(log)  # a missing package fails before any model work
    file = read_run_config(config) if config is not None else {}
    request = request_from_fields(merge_run_config(file, given_flags(ctx, file)),
                                  command=["mmgauge", *(obj.get("argv") or sys.argv[1:])])
    out = request.out
    # The run folder's log waits for the run to make the folder; a file named outright gets one now.
    if log_file is None:
        detach = attach_run_log(RunFolder(out).log_file())
    else:
        detach = attach_run_log(log_file, make_folder=True)
    try:
        shown_progress = progress_for(console, progress_every) if quiet == 0 else NullProgress()
        results = asyncio.run(evaluate_async(request, progress=LoggedProgress(shown_progress)))
    except BaseException as error:
        # The error itself reaches stderr as one line (`main`); the log keeps its cause, for later.
        traceback = not isinstance(error, UserError)
        logging.getLogger(__name__).debug("run stopped: %r", error, exc_info=traceback)
        raise
    finally:
        detach()
    print_summary(console, results, str(out))
    print_judge_audit(console, out)
    console.print(f"results: {out}")
    log_results(log, [out], project=wandb_project, entity=wandb_entity)
    if results.failed:
        print_failures(Console(stderr=quiet > 0), results)
        raise click.exceptions.Exit(1)


def print_summary(console: Console, results: RunResults, out: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from mmgauge.core.baselines import baseline_labels, baselines_text, belonging

    counts = Table(title=f"mmgauge run: {out}")
    # Truncated answers are rare: their column only when there are some (80 columns hold the others).
    truncated = sum(b.truncated for b in results.benchmarks.values())
    columns = ["benchmark", "samples", "requested", "from cache", "resumed", "failed", "judge calls"]
    for column in columns + ["truncated"] * bool(truncated):
        counts.add_column(column, justify="left" if column == "benchmark" else "right")
    scores = Table(title="Scores")
    scores.add_column("benchmark", style="bold")
    scores.add_column("measure")
    scores.add_column("value", justify="right")
    for b in results.benchmarks.values():
        failed = f"[bold red]{b.failed}[/]" if b.failed else "0"
        row = [b.benchmark + (" (partial)" if b.partial else ""), b.coverage(), str(b.requested),
               str(b.cache_hits), str(b.resumed), failed, str(b.judge_calls)]
        counts.add_row(*row, *[f"[yellow]{b.truncated}[/]"] * bool(truncated))
        rows = {measure for measure, _ in b.headline}
        shown: set[str] = set()
        for measure, value in b.headline:
            scores.add_row(b.benchmark, measure, value)
            if b.baselines and baselines_text(b.baselines, measure):
                scores.add_row("", "  baselines", baselines_text(b.baselines, measure))
                shown.add(measure)
            # A number the row's text gives beside its headline (a split's F1 beside its accuracy).
            for other in belonging(b.baselines, measure, rows):
                scores.add_row("", f"  {other.removeprefix(measure).strip()} baselines",
                               baselines_text(b.baselines, other))
                shown.add(other)
        for measure in baseline_labels(b.baselines):
            if measure not in shown:  # a number with no row to go under
                scores.add_row("", f"  {measure}: baselines", baselines_text(b.baselines, measure))
        for path in b.outputs:
            scores.add_row(b.benchmark, "wrote", path)
    console.print(counts)
    console.print(scores)
    if any(b.baselines for b in results.benchmarks.values()):
        console.print(Text("baselines: what trivial answerers score on the same questions by the same rules "
                           "(always-yes/no, always-A, the most frequent correct letter; chance: the exact "
                           "expected score of random answers)"), soft_wrap=True)
    for note in results.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    if truncated:
        note = (f"note: {truncated} answer(s) stopped at the token limit (finish_reason \"length\") and were "
                "scored as they are; a larger --max-tokens lets them finish")
        console.print(Text(note, style="yellow"), soft_wrap=True)


def print_failures(console: Console, results: RunResults) -> None:
    """Why requests failed, one line per kind of error, and a re-run advised only where it can help."""
    from rich.text import Text

    judged = sum(b.judge_failed for b in results.benchmarks.values())
    which = f" ({judged} of them judge calls)" if judged else ""
    console.print(Text(f"{results.failed} request(s) failed{which} and were not scored:", style="bold red"))
    errors = results.error_counts()
    for error in errors:
        same = " (the same on every run: fix the cause)" if error.permanent else ""
        example = "" if error.example == error.label else f", e.g. {error.example}"
        console.print(Text(f"  {error.count} x {error.label}{same}{example}"), soft_wrap=True)
    retryable = sum(error.count for error in errors if not error.permanent)
    if retryable:
        console.print(f"Run the same command again to retry only the failed ones ({retryable} may succeed).")
    else:
        console.print("Running the same command again would get the same errors: change what causes them "
                      "(the prompt, --max-tokens, the model, the judge or their servers) first.")


def print_judge_audit(console: Console, out: Path) -> None:
    """What the judge decided (`judge_audit.json`), when the rules left any answer unread."""
    from rich.table import Table

    from mmgauge.comparison.audit import answers_text, decided_text, number_text, range_text
    from mmgauge.store.run_folder import RunFolder

    audit = RunFolder(out).read_judge_audit()
    if audit is None or not audit.relevant:
        return
    who = f"the judge ({audit.judge})" if audit.judge else "no judge"
    table = Table(title=f"Answers no rule could read, and what {who} made of them")
    for column in ("benchmark", "measure", "as scored", "judge-free bounds", "decided by them"):
        table.add_column(column, justify="left" if column in ("benchmark", "measure") else "right")
    for name, entry in audit.benchmarks.items():
        if not entry.rule_unresolved:
            continue
        table.add_row(name, answers_text(entry), "", "", "")
        for bounds in entry.bounds:
            table.add_row("", bounds.measure, number_text(bounds.value, bounds.unit), range_text(bounds),
                          decided_text(bounds))
    console.print(table)
