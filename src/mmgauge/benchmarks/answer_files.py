"""What a benchmark's `answers_reader` hook is asked and gives: answers scored elsewhere (another toolkit's
file, an official tool's results folder), read as the per-item outcomes `compare` pairs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the judge (sqlite, asyncio, ssl) is loaded by whoever resolves answers with one
    from mmgauge.extraction.judge import Judge
    from mmgauge.parts.outcomes import Outcomes


@dataclass(frozen=True)
class AnswersRequest:
    """A file or folder to read, what is known of it, and how `compare` was asked to read answers."""

    #: The table's column names (its header); None for a folder.
    columns: frozenset[str] | None
    #: Whether the benchmark was named (`NAME=PATH`): then the reader reads the file or says why it cannot.
    forced: bool = False
    #: How answers are read, where the benchmark has a choice (`--parser`); None: its default.
    parser: str | None = None
    judge: Judge | None = None
    literal_options: bool = False


@dataclass
class AnswersFile:
    """The outcomes of answers read from a file, what kind of file it was, and notes worth showing."""

    outcomes: Outcomes
    kind: str
    notes: list[str] = field(default_factory=list)
