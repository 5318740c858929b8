"""The judge pass for one unread answer, shared by runs and by predictions files.

VLMEvalKit asks its judge (up to 3 tries) only when exact matching read nothing; mmgauge does the same with
`judge_choice`. What stays unread counts wrong, unless the user asked for a seeded random letter
(`random_fallback`; VLMEvalKit draws one unseeded from the options and Z after three failed tries).
"""

from __future__ import annotations

from collections.abc import Mapping

from mmgauge.core.types import Extraction
from mmgauge.extraction.choice import judge_choice, random_choice
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import UNRESOLVED
from mmgauge.extraction.reasoning import marked_like

COUNTED_WRONG = "counted wrong"


async def resolve_answer(
    found: Extraction, sample_id: str, question: str, options: Mapping[str, str], text: str,
    judge: Judge | None, *, random_fallback: bool = False, seed: int = 0, has_key: bool = True,
) -> Extraction:
    """`found` read further where it holds no answer; `found` itself when nothing changed.

    Questions without an answer key are never judged (nothing would be scored)."""
    if found.method != UNRESOLVED or not has_key:
        return found
    out = found
    if judge is not None:
        out = marked_like(await judge_choice(judge, question, options, text), found)
    if out.method == UNRESOLVED and random_fallback:
        picked = random_choice(sample_id, list(options), seed)
        out = marked_like(picked.model_copy(update={"judge_reply": out.judge_reply}), found)
    if out.method == UNRESOLVED and COUNTED_WRONG not in (out.detail or ""):
        detail = f"{out.detail}; {COUNTED_WRONG}" if out.detail else COUNTED_WRONG
        out = out.model_copy(update={"detail": detail})
    return out
