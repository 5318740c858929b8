"""Trivial answerers a benchmark declares as its baselines (`Benchmark.baselines`).

A `Baseline` gives, for each record, the answers it would read there with their probabilities: one answer
with probability 1 for a fixed answerer (always "yes", always "A"), several for chance. The answers are
extracted answers (what a benchmark's `extract` returns: "yes", "A"), not raw text.

Chance only needs to tell right from wrong: a uniform letter out of n is the right one with probability 1/n
and a wrong one otherwise, so every wrong letter is merged into one (the scores cannot tell them apart, and
fewer outcomes keep the exact expectation cheap; see `baseline_scores.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Final

from mmgauge.core.types import SampleRecord

#: Answers with their probabilities (summing to 1).
Distribution = list[tuple[str, Fraction]]
#: The letters a single-choice benchmark reads answers as.
CHOICE_LETTERS: Final = ("A", "B", "C", "D", "E", "F", "G", "H", "I", "J")
ONE: Final = Fraction(1)


@dataclass(frozen=True)
class Baseline:
    name: str
    description: str
    answers: Callable[[SampleRecord], Distribution]
    #: It draws answers: its numbers are expected values (exact), not one answer set's scores.
    expected: bool = False


CHANCE: Final = "chance"


def constant(name: str, answer: str, description: str) -> Baseline:
    """The same answer to every question."""
    fixed: Distribution = [(answer, ONE)]
    return Baseline(name, description, lambda record: fixed)


def yes_no_baselines() -> list[Baseline]:
    """Always "yes", always "no", and a fair coin per question."""
    coin: Distribution = [("yes", Fraction(1, 2)), ("no", Fraction(1, 2))]
    return [
        constant("always-yes", "yes", "answers 'yes' to every question"),
        constant("always-no", "no", "answers 'no' to every question"),
        Baseline(CHANCE, "a fair coin per question: the exact expected score", lambda record: coin,
                 expected=True),
    ]


def most_frequent_letter(records: Sequence[SampleRecord]) -> tuple[str, int] | None:
    """The correct letter most records have and how many have it (ties: the first in the alphabet)."""
    counts = Counter(str(r.target).upper() for r in records if r.target and str(r.target).upper()
                     in CHOICE_LETTERS)
    if not counts:
        return None
    letter = min(counts, key=lambda key: (-counts[key], key))
    return letter, counts[letter]


def choice_baselines(
    records: Sequence[SampleRecord], options_of: Callable[[SampleRecord], int | None]
) -> list[Baseline]:
    """Always "A", always the most frequent correct letter, and a uniform letter per question (chance).

    `options_of` gives a record's number of options; chance is left out when a record does not say (records
    written before the count was kept).
    """
    found = [constant("always-A", "A", "answers 'A' to every question")]
    frequent = most_frequent_letter(records)
    if frequent is not None:
        letter, count = frequent
        said = f"answers '{letter}', the most frequent correct letter ({count} of {len(records)} questions)"
        found.append(constant("most-frequent", letter, said))
    counts = [options_of(record) for record in records]
    if records and all(n is not None and n > 0 for n in counts):
        found.append(Baseline(CHANCE, "a letter drawn uniformly from each question's options: the exact "
                                      "expected score", lambda record: uniform_letter(record, options_of),
                              expected=True))
    return found


def uniform_letter(record: SampleRecord, options_of: Callable[[SampleRecord], int | None]) -> Distribution:
    """Right with probability 1/n, else one wrong letter standing for all n - 1 of them."""
    n = options_of(record) or 1
    target = str(record.target or "").upper()
    wrong = next(letter for letter in CHOICE_LETTERS if letter != target)
    if target not in CHOICE_LETTERS:
        return [(wrong, ONE)]  # no answer key: every letter scores the same
    if n == 1:
        return [(target, ONE)]
    right, wrong_share = _shares(n)
    return [(target, right), (wrong, wrong_share)]


@cache
def _shares(n: int) -> tuple[Fraction, Fraction]:
    """1/n and (n - 1)/n: the same few fractions for every record (making one normalises it, 2 µs)."""
    return Fraction(1, n), Fraction(n - 1, n)
