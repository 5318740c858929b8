"""Reading a single-choice letter out of a model's answer: the official MMBench matcher, then a judge.

The rules, in order (they must agree exactly with the official matcher, since leaderboards use it):

1. An answer containing `FAILURE_MARKER` is a failed request, never an answer (method "failure"). Our own
   backends report failures in `response.error`; the marker is for replay files written by other toolkits.
2. Each of the characters ``. ( ) [ ] , : ; ! * # { }`` becomes a space and the text is split on white space.
   The option letters of this question (upper case) that occur as a whole token are counted. When exactly one
   does, it is taken only if its FIRST occurrence is among the last 4 tokens ("rule-letter"). When none does
   and a lone token "Z" occurs, the answer is Z: no option fits ("rule-letter").
3. Otherwise, when "answer is X" occurs (the phrase in any case; X one of A-D, upper case, maybe wrapped in
   asterisks, not followed by a letter so "answer is Cat" is not C) and X is an option, X is taken
   ("rule-regex"). "correct answer is X" is covered, as it contains "answer is X".
4. Otherwise, when the answer is at most twice as long as all option texts together and exactly one option
   text (lower-cased) occurs in the lower-cased answer, that option is taken ("rule-text").
5. Otherwise the answer is unresolved: a judge may be asked (`judge_choice`), reading its reply with the same
   rules, up to 3 tries. A seeded random letter (`random_choice`) exists only behind an explicit flag.

Rules 1-4 run in `choice_columns.py`, on whole columns; one answer here is a column of one row.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

import numpy as np

from mmgauge.core.types import Extraction
from mmgauge.extraction.choice_columns import NO_OPTION_CODE, match_rows
from mmgauge.extraction.choice_rules import (
    FAILURE_MARKER,
    METHODS,
    NO_OPTION,
    RULE_LETTER,
    RULE_REGEX,
    RULE_TEXT,
)
from mmgauge.extraction.methods import FAILURE, JUDGE, JUDGE_FAILED, JUDGE_REFUSED, RANDOM, UNRESOLVED

if TYPE_CHECKING:
    from mmgauge.extraction.judge import Judge

__all__ = [
    "FAILURE_MARKER", "JUDGE_TRIES", "METHODS", "NO_OPTION", "RULE_LETTER", "RULE_REGEX", "RULE_TEXT",
    "ChoiceMatcher", "judge_choice", "judge_prompt", "match_choice", "match_choices", "random_choice",
]

JUDGE_TRIES: Final = 3


_DETAIL: Final = {
    FAILURE: "the answer holds the failure marker of a failed request",
    UNRESOLVED: "no rule decided (no lone option letter at the end, no 'answer is X', no option text)",
}


def match_choice(text: str, options: Mapping[str, str]) -> Extraction:
    """The official rules over one answer, as an `Extraction` that names the deciding rule."""
    return match_choices([text], [options])[0]


def match_choices(texts: Sequence[str], options: Sequence[Mapping[str, str]]) -> list[Extraction]:
    """`match_choice` of many answers, answer i offering `options[i]`, read as one column."""
    letters = tuple(sorted({letter for offered in options for letter in offered}))
    offered = np.array([[letter in row for letter in letters] for row in options], dtype=bool)
    rows = [[row.get(letter, "") for letter in letters] for row in options]
    codes, methods = match_rows(texts, letters, offered.reshape(len(options), len(letters)), rows)
    found: list[Extraction] = []
    for code, number in zip(codes.tolist(), methods.tolist(), strict=True):
        letter = None if code < 0 else NO_OPTION if code == NO_OPTION_CODE else letters[code]
        found.append(Extraction(answer=letter, method=METHODS[number], detail=_DETAIL.get(METHODS[number])))
    return found


#: What rules 1-3 decide: the answer's text and the offered letters alone, never the option texts.
_TEXT_AND_LETTERS: Final = frozenset({FAILURE, RULE_LETTER, RULE_REGEX})


class ChoiceMatcher:
    """`match_choices` over a stream of answers that keeps what rules 1-3 decided for a text and letters.

    A run reads its answers a few at a time as they arrive, where the column-wise rules' fixed cost (about
    0.1 ms a call) is most of the work, and the same short answers ("A", "The answer is B.") come back again
    and again. Rules 1-3 look only at the text and at which letters are offered, so what they decided is
    given again for the same pair; answers left to rule 4 (the option texts) are read every time.
    """

    def __init__(self, limit: int = 65_536) -> None:
        #: At most this many pairs are kept (a run of very varied answers stops adding, nothing is evicted).
        self.limit = limit
        self._decided: dict[tuple[str, tuple[str, ...]], Extraction] = {}

    def match(self, texts: Sequence[str], options: Sequence[Mapping[str, str]]) -> list[Extraction]:
        keys = [(text, tuple(sorted(offered))) for text, offered in zip(texts, options, strict=True)]
        # Extractions are shared by the records given them: nothing modifies one in place (model_copy).
        found = {i: known for i, key in enumerate(keys) if (known := self._decided.get(key)) is not None}
        missing = [i for i in range(len(keys)) if i not in found]
        if missing:
            fresh = match_choices([texts[i] for i in missing], [options[i] for i in missing])
            for i, extraction in zip(missing, fresh, strict=True):
                found[i] = extraction
                if extraction.method in _TEXT_AND_LETTERS and len(self._decided) < self.limit:
                    self._decided[keys[i]] = extraction
        return [found[i] for i in range(len(keys))]


def judge_prompt(question: str, options: Mapping[str, str], answer: str, attempt: int = 0) -> str:
    """The question to the judge; later attempts add a stricter reminder, so a cached reply is not reused."""
    lines = [
        "You are helping to grade a multiple-choice exam. Below are a question, its options and a student's",
        "answer. Decide which single option the answer chose. If it chose none of them, or more than one,",
        f"the option is {NO_OPTION}.",
        "",
        f"Question: {question}",
        "Options:",
        *(f"{letter}. {text}" for letter, text in options.items()),
        f"{NO_OPTION}. none of the options, or several",
        "",
        f"Answer: {answer}",
        "",
        "Reply with one capital letter only.",
    ]
    if attempt > 0:
        lines.append(f"(Attempt {attempt + 1}: your last reply could not be read. Write the letter only.)")
    return "\n".join(lines)


async def judge_choice(
    judge: Judge, question: str, options: Mapping[str, str], answer: str, tries: int = JUDGE_TRIES
) -> Extraction:
    """Ask the judge which option `answer` chose; its reply is read by rules 1-4, up to `tries` times.

    A reply of Z is a decision (no option fits), not a failure. An unavailable judge counts as a spent try,
    and the returned extraction says so in `detail`; when no try got a reply at all, the method is
    `judge-failed`: the answer waits for the judge rather than counting as unresolved.
    """
    from mmgauge.extraction.judge import JudgeUnavailable  # the judge's backend stack, only when judging

    reply: str | None = None
    problems: list[str] = []
    refused = True
    for attempt in range(tries):
        try:
            reply = await judge.ask(judge_prompt(question, options, answer, attempt))
        except JudgeUnavailable as error:
            problems.append(f"try {attempt + 1}: judge unavailable ({error})")
            refused = refused and error.permanent
            continue
        read = match_choice(reply.strip(), options)
        if read.answer is not None:
            detail = f"try {attempt + 1}, reply read by {read.method}"
            return Extraction(answer=read.answer, method=JUDGE, judge_reply=reply, detail=detail)
        problems.append(f"try {attempt + 1}: reply not readable")
    if reply is not None:
        return Extraction(answer=None, method=UNRESOLVED, judge_reply=reply, detail="; ".join(problems))
    detail = (JUDGE_REFUSED if refused else "") + "; ".join(problems)
    return Extraction(answer=None, method=JUDGE_FAILED, detail=detail)


def random_choice(sample_id: str, options: Sequence[str], seed: int) -> Extraction:
    """A seeded random letter for an unresolved answer; only used when the user asks for it explicitly.

    Seeded per sample (not by a shared generator), so the letter does not depend on the order of resolution.
    """
    letter = random.Random(f"{seed}:{sample_id}").choice(list(options))
    return Extraction(answer=letter, method=RANDOM, detail=f"seeded random letter (seed {seed})")
