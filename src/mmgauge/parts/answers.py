"""The part of a sample record a comparison or an audit needs, read from plain dicts (fast) or records."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mmgauge.core.types import SampleRecord


@dataclass(slots=True)
class Answer:
    benchmark: str
    sample_id: str
    round: int
    #: The request failed (an error, or no text): never scored.
    failed: bool
    answer: str | None
    method: str | None
    target: str | None
    #: The benchmark's own verdict on the answer (None when not scored, e.g. a failed request).
    correct: bool | None
    metadata: dict[str, Any]
    #: The answer stopped at the token limit (finish_reason "length").
    truncated: bool = False

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Answer:
        response = data.get("response") or {}
        extraction = data.get("extraction") or {}
        failed = response.get("error") is not None or response.get("text") is None
        return cls(
            benchmark=str(data.get("benchmark")), sample_id=str(data.get("sample_id")),
            round=int(data.get("round") or 0), failed=failed,
            answer=extraction.get("answer"), method=extraction.get("method"), target=data.get("target"),
            correct=data.get("correct"), metadata=dict(data.get("metadata") or {}),
            truncated=response.get("truncated") is True,
        )

    @classmethod
    def from_record(cls, record: SampleRecord) -> Answer:
        extraction = record.extraction
        return cls(
            benchmark=record.benchmark, sample_id=record.sample_id, round=record.round,
            failed=not record.response.ok,
            answer=None if extraction is None else extraction.answer,
            method=None if extraction is None else extraction.method, target=record.target,
            correct=record.correct, metadata=dict(record.metadata), truncated=record.response.truncated,
        )


def by_benchmark(answers: Iterable[Answer]) -> dict[str, list[Answer]]:
    """The answers of each benchmark in the order given (the last one per key wins, as in a record log)."""
    latest: dict[tuple[str, str, int], Answer] = {}
    for answer in answers:
        latest[(answer.benchmark, answer.sample_id, answer.round)] = answer
    out: dict[str, list[Answer]] = {}
    for answer in latest.values():
        out.setdefault(answer.benchmark, []).append(answer)
    return out
