"""Reading yes/no out of a model's answer: the MME tool's own rule, and a whole-word rule for chatty models.

`official` reproduces the MME evaluation tool (`calculation.py`, `parse_pred_ans`) exactly: lower-case the
answer; "yes" or "no" exactly is taken as is; else only the first 4 characters are looked at, "yes" inside
them wins, then "no", else the answer is "other" (scored wrong). Nothing is stripped first, so " yes" is yes,
"  yes" is other, "yes\\n" is yes (by the prefix), "yesterday" is yes, "not sure" and "none" are no, "I don't
know" is other.

`words` looks at whole words (maximal runs of letters, after lower-casing): yes when the word "yes" occurs and
the word "no" does not, no in the mirror case, otherwise unknown ("words-unknown"), which an LLM judge may
resolve.
"""

from __future__ import annotations

import re

from mmgauge.core.types import Extraction
from mmgauge.extraction.parser_names import PARSERS as PARSERS
from mmgauge.extraction.parser_names import ParserName as ParserName

# Letters only: digits, underscores and punctuation separate words ("no." and "yes," are words).
_WORD = re.compile(r"[^\W\d_]+")


def parse_official(text: str) -> Extraction:
    """The MME tool's rule, character for character (see the module docstring)."""
    lowered = text.lower()
    if lowered in ("yes", "no"):
        return Extraction(answer=lowered, method="official-exact")
    prefix = lowered[:4]
    if "yes" in prefix:
        return Extraction(answer="yes", method="official-prefix")
    if "no" in prefix:
        return Extraction(answer="no", method="official-prefix")
    return Extraction(answer=None, method="official-other")


def parse_words(text: str) -> Extraction:
    """Yes or no when exactly one of the two words occurs; unknown when both or neither do."""
    words = set(_WORD.findall(text.lower()))
    has_yes = "yes" in words
    has_no = "no" in words
    if has_yes and not has_no:
        return Extraction(answer="yes", method="words")
    if has_no and not has_yes:
        return Extraction(answer="no", method="words")
    detail = "both 'yes' and 'no' occur" if has_yes else "neither 'yes' nor 'no' occurs"
    return Extraction(answer=None, method="words-unknown", detail=detail)


def parse_yes_no(text: str, parser: str) -> Extraction:
    if parser == "official":
        return parse_official(text)
    if parser == "words":
        return parse_words(text)
    raise ValueError(f"unknown yes/no parser '{parser}'; known: {', '.join(PARSERS)}")
