"""The official MMBench matcher's rules 1-4 (`match_letter`), with no dependency: the rules themselves are
described in `choice.py`, which adds the `Extraction` form, the judge and the seeded random letter."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from mmgauge.extraction.methods import FAILURE, JUDGE, RANDOM, UNRESOLVED

FAILURE_MARKER: Final = "Failed to obtain answer via API"

RULE_LETTER: Final = "rule-letter"
RULE_REGEX: Final = "rule-regex"
RULE_TEXT: Final = "rule-text"
#: Every method a choice extraction can carry, in report order.
METHODS: Final[tuple[str, ...]] = (RULE_LETTER, RULE_REGEX, RULE_TEXT, JUDGE, RANDOM, FAILURE, UNRESOLVED)

#: The letter meaning "none of the options".
NO_OPTION: Final = "Z"

#: Rule 2 reads these characters as spaces before splitting the answer into tokens.
SEPARATORS: Final = str.maketrans(dict.fromkeys(".()[],:;!*#{}", " "))
#: Rule 3: "answer is X", any case.
ANSWER_IS: Final = re.compile(r"(?i:answer is)\s+\**([A-D])\**(?![A-Za-z])")


def match_letter(text: str, letters: Sequence[str], texts: Sequence[str]) -> tuple[str | None, str]:
    """Rules 1-4 over one answer; `letters[i]` labels option text `texts[i]`. Returns (letter, method).

    This is the hot loop of scoring 100,000-row files, so it works on plain sequences and does no allocation
    beyond the token list.
    """
    if len(text) == 1 and text in letters:  # the common bare-letter answer; rule 2 gives the same result
        return text, RULE_LETTER
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
