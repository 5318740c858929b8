"""`RunResults`: the versioned, typed document a run folder's scores are kept in.

Each benchmark's entry describes EVERY record the folder holds for it (never just what the last command
asked), with the counts of the command that last wrote it and its status: `complete` when every question of
its dataset has a record, else `partial` with how many of how many.

The benchmark's own result (an `MMEResult`, `MMBenchResult`, ...) is kept as its JSON and read back as its
type on demand (`result_as`), so this module needs no benchmark code, and a folder scored by a plug-in that is
not installed here still loads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field, model_validator

from mmgauge.core.baselines import BaselineScores

#: Version 1 (mmgauge 0.1) had no status or record counts; it still reads, as `complete`. Version 2 documents
#: may carry `baselines` per benchmark (added without a new version: optional, and readers that predate it
#: ignore the key).
RESULTS_SCHEMA_VERSION = 2

M = TypeVar("M", bound=BaseModel)


class ErrorCount(BaseModel):
    """Failed records that share one kind of error (its label): how many, one example, and whether running
    the same command again can help."""

    label: str
    count: int = 0
    example: str = ""
    #: Every one of them is the request's own error (an HTTP 400, a context too long, the same reply to every
    #: try): running the same command again gets the same.
    permanent: bool = False


class BenchmarkResults(BaseModel):
    """One benchmark's scores over all its records in the folder, and how they were obtained."""

    #: The benchmark's name (the key it is stored under, when a hand-written document leaves it out).
    benchmark: str = ""
    #: `partial`: fewer records than the dataset has questions x rounds (a `--limit` run, a failed request).
    status: Literal["complete", "partial"] = "complete"
    #: Records scored (one per question and round that has an answer or a failed request).
    records: int | None = None
    #: Records a complete run holds (dataset size x rounds); None when unknown.
    expected: int | None = None
    #: Records scored (kept under its 0.1 name).
    samples: int = 0
    #: What the last command did: sent, served by the cache, found finished already, failed, judged.
    requested: int = 0
    cache_hits: int = 0
    resumed: int = 0
    failed: int = 0
    #: Of `failed`: answers whose judge calls all failed (waiting for the judge, asked again next run).
    judge_failed: int = 0
    #: Of `failed`, by kind of error, the most frequent first.
    errors: list[ErrorCount] = Field(default_factory=list)
    judge_calls: int = 0
    #: Scored answers that stopped at the token limit (finish_reason "length"): what was read from them may
    #: be cut short.
    truncated: int = 0
    headline: list[tuple[str, str]] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    #: The benchmark's result model as JSON (see `result_as`).
    result: dict[str, Any] = Field(default_factory=dict)
    #: What trivial answerers score on the same records, by the benchmark's own scoring: baseline name
    #: (`always-yes`, `always-A`, `most-frequent`, `chance`) -> its headline numbers and breakdowns.
    baselines: dict[str, BaselineScores] = Field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return self.status == "partial"

    def coverage(self) -> str:
        """`records/expected` (or the records alone when the dataset size is unknown)."""
        if self.expected is None:
            return str(self.records if self.records is not None else self.samples)
        return f"{self.records if self.records is not None else self.samples}/{self.expected}"

    def result_as(self, model: type[M]) -> M:
        return model.model_validate(self.result)


class RunResults(BaseModel):
    """The scores of one run folder (`results.json`)."""

    schema_version: int = RESULTS_SCHEMA_VERSION
    model: str = ""
    model_fingerprint: str = ""
    executor: dict[str, Any] | None = None
    executor_stats: dict[str, Any] | None = None
    #: Notes about the run as a whole (e.g. labels of built-in sample data or a baseline model).
    notes: list[str] = Field(default_factory=list)
    #: Short tags of those notes (`sample data`, `baseline`) that mark the run wherever it is named.
    labels: list[str] = Field(default_factory=list)
    benchmarks: dict[str, BenchmarkResults] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _names(self) -> RunResults:
        for name, entry in self.benchmarks.items():
            if not entry.benchmark:
                entry.benchmark = name
        return self

    @property
    def failed(self) -> int:
        return sum(entry.failed for entry in self.benchmarks.values())

    def error_counts(self) -> list[ErrorCount]:
        """The failed records of every benchmark, by kind of error, the most frequent first."""
        return merge_errors(error for entry in self.benchmarks.values() for error in entry.errors)

    def result_as(self, benchmark: str, model: type[M]) -> M:
        """The result of `benchmark` as `model` (e.g. `results.result_as("mme", MMEResult)`)."""
        entry = self.benchmarks.get(benchmark)
        if entry is None:
            known = ", ".join(sorted(self.benchmarks)) or "none"
            raise KeyError(f"no results for benchmark '{benchmark}' in this run (it has: {known})")
        return entry.result_as(model)


def merge_errors(errors: Iterable[ErrorCount]) -> list[ErrorCount]:
    """`errors` with those of one label added up (permanent only if all were), the most frequent first."""
    merged: dict[str, ErrorCount] = {}
    for error in errors:
        seen = merged.get(error.label)
        if seen is None:
            merged[error.label] = error.model_copy()
        else:
            seen.count += error.count
            seen.permanent = seen.permanent and error.permanent
    return sorted(merged.values(), key=lambda e: (-e.count, e.label))
