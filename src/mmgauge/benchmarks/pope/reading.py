"""Reading yes/no out of a model's POPE answer: POPE's own rule (the default) and VLMEvalKit's.

`official` is POPE's `evaluate.py` (AoiDragon/POPE), rule for rule: keep the text before the first "." (the
first sentence), drop every ",", split on single spaces (not on any whitespace: "No\\nThere..." is one word
"No\\nThere"), and the answer is no when one of the words is exactly "No", "not" or "no"; otherwise it is
yes. So nothing is ever unreadable: "NO", "Nope", "" and "I cannot tell" all count as yes, as they do in the
paper's numbers.

`vlmevalkit` is VLMEvalKit's `YOrN_Extraction`: lower-case, VLMEvalKit's `process_punctuation`, split on
whitespace; yes when the word "yes" occurs and "no" does not, no in the mirror case, else unknown (scored
wrong, and not a "yes" for precision and recall, as in VLMEvalKit's `POPE_rating`).
"""

from __future__ import annotations

import re
from typing import Final, Literal

from mmgauge.core.types import Extraction
from mmgauge.extraction.yesno import yes_xor_no

ReaderName = Literal["official", "vlmevalkit"]
READERS: Final[tuple[str, ...]] = ("official", "vlmevalkit")

_NEGATIONS: Final = frozenset({"No", "not", "no"})


def read_official(text: str) -> Extraction:
    """POPE's `evaluate.py` rule (module docstring)."""
    first = text.split(".")[0]
    words = first.replace(",", "").split(" ")
    if _NEGATIONS.intersection(words):
        return Extraction(answer="no", method="pope-negation")
    return Extraction(answer="yes", method="pope-default-yes")


# VLMEvalKit's punctuation handling (`vlmeval.smp.process_punctuation`), which comes from the VQA tools.
_PUNCT: Final = (";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<", "@", "`",
                 ",", "?", "!")
_COMMA_STRIP: Final = re.compile(r"(\d)(,)(\d)")
# The pattern is VLMEvalKit's as written: "(?!<=\d)" is a look-ahead for the text "<=" and a digit (meant as a
# look-behind), so in effect every "." not followed by a digit goes.
_PERIOD_STRIP: Final = re.compile(r"(?!<=\d)(\.)(?!\d)")
# VLMEvalKit passes re.UNICODE as `sub`'s third argument, which is the COUNT: at most 32 periods go.
_PERIOD_COUNT: Final = int(re.UNICODE)


def vlmevalkit_punctuation(text: str) -> str:
    """`process_punctuation` as VLMEvalKit runs it (including its quirks, which change what is read)."""
    out = text
    has_number_comma = _COMMA_STRIP.search(text) is not None
    for mark in _PUNCT:
        if mark + " " in text or " " + mark in text or has_number_comma:
            out = out.replace(mark, "")
        else:
            out = out.replace(mark, " ")
    return _PERIOD_STRIP.sub("", out, _PERIOD_COUNT)


def read_vlmevalkit(text: str) -> Extraction:
    """VLMEvalKit's `YOrN_Extraction` (module docstring)."""
    return yes_xor_no(vlmevalkit_punctuation(text.lower()).split(), "vlmevalkit")


def read_answer(text: str, reader: str) -> Extraction:
    if reader == "official":
        return read_official(text)
    if reader == "vlmevalkit":
        return read_vlmevalkit(text)
    raise ValueError(f"unknown POPE reader '{reader}'; known: {', '.join(READERS)}")
