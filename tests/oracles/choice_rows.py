"""The official MMBench matcher's rules 1-4 over one answer, row by row (as `choice.py` describes them): the
oracle of `mmgauge.extraction.choice_columns`."""

from __future__ import annotations

from collections.abc import Sequence

from mmgauge.extraction.choice_rules import (
    ANSWER_IS,
    FAILURE_MARKER,
    NO_OPTION,
    RULE_LETTER,
    RULE_REGEX,
    RULE_TEXT,
    SEPARATORS,
)
from mmgauge.extraction.methods import FAILURE, UNRESOLVED


def match_letter(text: str, letters: Sequence[str], texts: Sequence[str]) -> tuple[str | None, str]:
    """Rules 1-4 over one answer; `letters[i]` labels option text `texts[i]`. Returns (letter, method)."""
    if FAILURE_MARKER in text:
        return None, FAILURE
    tokens = text.translate(SEPARATORS).split()
    present = set(tokens)
    found = [letter for letter in letters if letter in present]
    if len(found) == 1:
        if tokens.index(found[0]) >= len(tokens) - 4:
            return found[0], RULE_LETTER
    elif not found and NO_OPTION in present:
        return NO_OPTION, RULE_LETTER
    hit = ANSWER_IS.search(text)
    if hit is not None and hit.group(1) in letters:
        return hit.group(1), RULE_REGEX
    if len(text) <= 2 * sum(len(option) for option in texts):
        lowered = text.lower()
        named = [letter for letter, option in zip(letters, texts, strict=True) if option.lower() in lowered]
        if len(named) == 1:
            return named[0], RULE_TEXT
    return None, UNRESOLVED
