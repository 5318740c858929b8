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
from collections.abc import Collection, Sequence

from mmgauge.core.types import Extraction
from mmgauge.extraction.parser_names import PARSERS as PARSERS
from mmgauge.extraction.parser_names import ParserName as ParserName
from mmgauge.extraction.yesno_columns import ANSWERS, OFFICIAL, official_texts

# Letters only: digits, underscores and punctuation separate words ("no." and "yes," are words).
_WORD = re.compile(r"[^\W\d_]+")


def parse_official(text: str) -> Extraction:
    """The MME tool's rule, character for character (see the module docstring; it runs in `yesno_columns`)."""
    return parse_yes_no_many([text], "official")[0]


def parse_words(text: str) -> Extraction:
    """Yes or no when exactly one of the two words occurs; unknown when both or neither do."""
    return yes_xor_no(set(_WORD.findall(text.lower())), "words")


def yes_xor_no(words: Collection[str], method: str) -> Extraction:
    """"yes" or "no" when exactly one of them is among `words`, else unknown (`<method>-unknown`, saying why):
    the decision of every whole-word yes/no rule, whatever its way of cutting the text into words."""
    has_yes, has_no = "yes" in words, "no" in words
    if has_yes and not has_no:
        return Extraction(answer="yes", method=method)
    if has_no and not has_yes:
        return Extraction(answer="no", method=method)
    detail = "both 'yes' and 'no' occur" if has_yes else "neither 'yes' nor 'no' occurs"
    return Extraction(answer=None, method=f"{method}-unknown", detail=detail)


def parse_yes_no(text: str, parser: str) -> Extraction:
    return parse_yes_no_many([text], parser)[0]


def parse_yes_no_many(texts: Sequence[str], parser: str) -> list[Extraction]:
    if parser == "official":
        answers, methods = official_texts(texts)
        return [Extraction(answer=ANSWERS[answer], method=OFFICIAL[method])
                for answer, method in zip(answers.tolist(), methods.tolist(), strict=True)]
    if parser == "words":
        return [parse_words(text) for text in texts]
    raise ValueError(f"unknown yes/no parser '{parser}'; known: {', '.join(PARSERS)}")
