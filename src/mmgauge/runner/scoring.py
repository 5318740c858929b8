"""The runner's last step: the judge pass and scoring of one benchmark over all its records in the folder."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mmgauge.benchmarks.baseline_scores import score_baselines
from mmgauge.core.types import DatasetEntry, Sample, SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import JUDGE_FAILED, judge_refused
from mmgauge.runner.progress import ProgressSink, outcome_of
from mmgauge.store.results import BenchmarkResults, ErrorCount, merge_errors
from mmgauge.store.run_folder import RunFolder

if TYPE_CHECKING:
    from mmgauge.runner.run import BenchmarkRun


@dataclass
class BenchCounts:
    """What this command did for one benchmark."""

    requested: int = 0
    cache_hits: int = 0
    resumed: int = 0


async def score_benchmark(
    run: BenchmarkRun,
    records: list[SampleRecord],
    samples: dict[str, Sample],
    judge: Judge | None,
    progress: ProgressSink,
    counts: BenchCounts,
    folder: RunFolder,
    stale: int = 0,
) -> tuple[BenchmarkResults, list[SampleRecord]]:
    """Resolve with the judge, score, write the benchmark's own outputs; `records` in dataset order."""
    bench = run.benchmark
    judge_calls_before = judge.calls if judge is not None else 0
    if judge is not None:
        # The number of judge calls is only known afterwards: an open-ended bar counts them.
        progress.start(None, f"judge ({bench.name})")
        judge.on_call = lambda cached: progress.advance(cached=cached)
    try:
        resolved = [_await_judge(record) for record in await bench.resolve(records, samples, judge)]
    except BaseException as error:
        if judge is not None:
            progress.finish(outcome_of(error))
        raise
    else:
        if judge is not None:
            progress.finish()
    finally:
        if judge is not None:
            judge.on_call = None
    result = bench.score(resolved)
    outputs = bench.write_outputs(resolved, run.dataset, result, folder.path)
    expected = len(run.dataset.samples) * bench.options.rounds
    failed = sum(1 for record in resolved if not record.response.ok)
    answered = len(resolved) - failed
    headline = bench.summary(result)
    headline[:0] = coverage_line(bench.name, answered, expected)
    judge_failed = sum(1 for r in resolved if r.extraction and r.extraction.method == JUDGE_FAILED)
    if judge_failed:
        headline.append((f"{bench.name} waiting for the judge", f"{judge_failed} answers: every judge call "
                                                                 "for them failed; not scored, asked again "
                                                                 "on the next run"))
    if stale:
        headline.append((f"{bench.name} note", f"{stale} stored answers came from another model, prompt or "
                                               "data and were not scored; run without --limit to ask again"))
    entry = BenchmarkResults(
        benchmark=bench.name,
        status="complete" if answered >= expected else "partial",
        records=answered,
        expected=expected,
        samples=len(resolved),
        requested=counts.requested,
        cache_hits=counts.cache_hits,
        resumed=counts.resumed,
        failed=failed,
        judge_failed=judge_failed,
        errors=error_counts(resolved),
        judge_calls=(judge.calls - judge_calls_before) if judge is not None else 0,
        truncated=truncated_count(resolved),
        headline=headline,
        outputs=[str(path) for path in outputs],
        result=result.model_dump(mode="json"),
        baselines=score_baselines(bench, resolved),
    )
    return entry, resolved


def _await_judge(record: SampleRecord) -> SampleRecord:
    """A record whose judge calls all failed waits for the judge like a failed request: it is not scored (as
    wrong or otherwise) and the next run of the same command judges it again. Its answer text is kept. Where
    the judge's server refused every try, asking again gets the same: the failure is marked permanent."""
    extraction = record.extraction
    if extraction is None or extraction.method != JUDGE_FAILED or not record.response.ok:
        return record
    error = f"judge failed: {extraction.detail or 'no reply'}"
    refused = judge_refused(extraction.method, extraction.detail)
    update = {"error": error, "error_code": "judge refused" if refused else "judge failed",
              "error_permanent": refused}
    return record.model_copy(update={"response": record.response.model_copy(update=update)})


def error_counts(records: list[SampleRecord]) -> list[ErrorCount]:
    """The failed records by kind of error (the backend's label, else the message itself)."""
    return merge_errors(
        ErrorCount(label=r.response.error_code or error, count=1, example=error,
                   permanent=r.response.error_permanent)
        for r in records if not r.response.ok
        for error in [r.response.error or "no text in the response"]
    )


def truncated_count(records: list[SampleRecord]) -> int:
    """Answers scored although they stopped at the token limit."""
    return sum(1 for r in records if r.response.ok and r.response.truncated)


def coverage_line(name: str, answered: int, expected: int | None) -> list[tuple[str, str]]:
    """The headline line saying a benchmark is partial (none when it is complete or its size unknown)."""
    if expected is None or answered >= expected:
        return []
    return [(f"{name} coverage", f"partial: {answered} of {expected} questions x rounds answered")]


def stored_entry(
    dataset: DatasetEntry, records: list[SampleRecord], kept: BenchmarkResults | None
) -> BenchmarkResults:
    """The entry of a benchmark of the folder this command did not run, scored again over its final records.

    Scoring is pure, so its stored records give the same result as before; a benchmark whose module is not
    installed here keeps its earlier result. This command's counts are 0.
    """
    from mmgauge.benchmarks.registry import get_benchmark
    from mmgauge.core.errors import UserError

    answered = sum(1 for record in records if record.response.ok)
    expected = dataset.expected
    status = "partial" if expected is not None and answered < expected else "complete"
    base = kept if kept is not None else BenchmarkResults(benchmark=dataset.benchmark)
    update: dict[str, object] = {
        "status": status, "records": answered, "expected": expected, "samples": len(records),
        "failed": len(records) - answered, "requested": 0, "cache_hits": 0, "resumed": 0, "judge_calls": 0,
        "errors": error_counts(records), "truncated": truncated_count(records),
    }
    try:
        bench = get_benchmark(dataset.benchmark, _known_options(dataset))
    except UserError:
        return base.model_copy(update=update)
    result = bench.score(records)
    headline = coverage_line(bench.name, answered, expected) + bench.summary(result)
    update.update(result=result.model_dump(mode="json"), headline=headline,
                  baselines=score_baselines(bench, records))
    return base.model_copy(update=update)


def _known_options(dataset: DatasetEntry) -> dict[str, object]:
    """The stored options the benchmark still declares (folders of 0.1 stored every benchmark's options)."""
    from mmgauge.benchmarks.registry import benchmark_class

    fields = benchmark_class(dataset.benchmark).options_type.model_fields
    return {key: value for key, value in dataset.options.items() if key in fields}
