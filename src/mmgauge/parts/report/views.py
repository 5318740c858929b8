"""The views of a run the report's sections are built from: one finished request (`Row`) and one
benchmark's results (`BenchView`). `report/load.py` reads run folders into them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mmgauge.core.baselines import BaselineScores


@dataclass(slots=True)
class Row:
    """What the report needs of one finished request (a `SampleRecord` without the bulk)."""

    benchmark: str
    sample_id: str
    round: int
    prompt: str
    text: str | None
    error: str | None
    answer: str | None
    method: str | None
    detail: str | None
    target: str | None
    correct: bool | None
    metadata: dict[str, Any]
    #: (sha256, file path or None) of each image; None for records of mmgauge 0.1, which did not name them.
    images: list[tuple[str, str | None]] | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None or self.text is None

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.benchmark, self.sample_id, self.round)


@dataclass
class BenchView:
    name: str
    counts: dict[str, int] = field(default_factory=dict)
    headline: list[tuple[str, str]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    rows: list[Row] = field(default_factory=list)
    #: `complete`, or `partial` when fewer questions were answered than the dataset holds.
    status: str = "complete"
    #: "answered/expected" (or the count alone when the dataset size is unknown).
    coverage: str = ""
    #: What trivial answerers score on the same records (results.json `baselines`), by name.
    baselines: dict[str, BaselineScores] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return self.status == "partial"
