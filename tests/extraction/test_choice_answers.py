"""The facts rules 1-3 read from each distinct answer: the byte scan of plain ASCII texts gives what the
reference tokenizer and regex give for the same text."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa

from mmgauge.extraction.choice import FAILURE_MARKER
from mmgauge.extraction.choice_answers import AnswerFacts, _python_facts, answer_facts

LETTERS = ("A", "B", "C", "D", "E", "F")
PIECES = ["A", "B", "C", "D", "E", "F", "G", "Z", "a", "b", "answer is", "ANSWER IS", "Answer is", "*", "**",
          ".", ",", "(", ")", "[", "]", "{", "}", ":", ";", "!", "#", " ", "  ", "\t", "\n", "\r\n", "cat",
          "AB", "B2", "x", "\x0b", "\x1c", "İ", "é", "\u3000", "\u00a0", FAILURE_MARKER]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 14)))


def test_byte_scan_facts_are_the_reference_facts() -> None:
    rng = random.Random(3)
    texts = sorted({_text(rng) for _ in range(20000)})
    facts = answer_facts(pa.array(texts, type=pa.string()), LETTERS)
    expected = AnswerFacts(np.array([FAILURE_MARKER in text for text in texts], dtype=bool),
                           np.zeros(len(texts), dtype=np.uint16), np.zeros(len(texts), dtype=np.uint16),
                           np.full(len(texts), -1, dtype=np.int64))
    for row, text in enumerate(texts):
        if not expected.failed[row]:
            _python_facts(row, text, LETTERS, expected)
    assert np.array_equal(facts.failed, expected.failed)
    live = ~expected.failed
    for name in ("present", "late", "regex"):
        got, want = getattr(facts, name)[live], getattr(expected, name)[live]
        wrong = np.flatnonzero(got != want)
        assert not len(wrong), (name, [texts[i] for i in np.flatnonzero(live)[wrong[:5]]])
    assert (facts.regex >= 0).sum() > 100 and (facts.late > 0).sum() > 1000
