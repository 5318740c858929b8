"""The judge pass of CircularEval, done cheaply.

Rules run on every copy first. Then, per question group: a copy read as wrong (or a failed request) makes the
group wrong and no judge is asked; all copies read as right make it right; otherwise the judge is asked about
the unresolved copies one by one, in copy order, stopping at the first one it reads as wrong, since the group
is lost from then on. Copies left unresolved say why in `detail`. A seeded random letter is given to what
stays unresolved only when the user asked for it (`random_fallback`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mmgauge.core.types import Extraction
from mmgauge.extraction.choice import judge_choice, random_choice
from mmgauge.extraction.methods import FAILURE, JUDGE_FAILED, UNRESOLVED
from mmgauge.extraction.reasoning import marked_like

if TYPE_CHECKING:  # loaded only where a judge is given: a plain `score mmbench` starts without it
    from mmgauge.extraction.judge import Judge

#: Question groups judged at the same time (calls within one group stay in order).
JUDGE_CONCURRENCY = 8
#: How `detail` begins for an unresolved copy the judge was never asked about (its group was already wrong).
NOT_JUDGED = "not judged:"


@dataclass
class Copy:
    """What resolving one copy needs: its place, the question, the text the rules read (the model's, without
    any reasoning they were kept from) and their reading."""

    key: int
    sample_id: str
    group: int
    copy: int
    answer: str | None
    question: str
    options: dict[str, str]
    text: str
    extraction: Extraction


def _wrong(item: Copy) -> bool:
    ext = item.extraction
    return ext.method == FAILURE or (ext.answer is not None and ext.answer != item.answer)


def was_not_judged(extraction: Extraction) -> bool:
    """Whether an unresolved copy stayed unresolved because the judge was never asked about it."""
    return extraction.method == UNRESOLVED and (extraction.detail or "").startswith(NOT_JUDGED)


def _not_judged(item: Copy, wrong_at: int) -> Extraction:
    return item.extraction.model_copy(
        update={"detail": f"{NOT_JUDGED} the group is already wrong at copy {wrong_at}"})


async def _resolve_group(items: list[Copy], judge: Judge, out: dict[int, Extraction]) -> None:
    wrong = [item.copy for item in items if _wrong(item)]
    if wrong:
        for item in items:
            if item.extraction.method == UNRESOLVED:
                out[item.key] = _not_judged(item, wrong[0])
        return
    lost_at: int | None = None
    for item in items:
        if item.extraction.answer is not None:
            continue
        if lost_at is not None:
            out[item.key] = _not_judged(item, lost_at)
            continue
        found = await judge_choice(judge, item.question, item.options, item.text)
        found = marked_like(found, item.extraction)
        out[item.key] = found
        if found.method == JUDGE_FAILED:
            # The group waits for the judge: the copies after this one are judged on the next run.
            for later in items[items.index(item) + 1:]:
                if later.extraction.answer is None:
                    out[later.key] = later.extraction.model_copy(
                        update={"detail": f"{NOT_JUDGED} the judge failed at copy {item.copy}"})
            return
        if found.answer != item.answer:
            lost_at = item.copy


async def resolve_copies(
    copies: Sequence[Copy], judge: Judge | None, *, random_fallback: bool = False, seed: int = 0
) -> dict[int, Extraction]:
    """New extractions by `Copy.key` for the copies that changed; copies without an answer key are not judged.

    Groups without an answer key (test split) are left to the evaluation server, which does its own reading.
    """
    changed: dict[int, Extraction] = {}
    if judge is not None:
        groups: dict[int, list[Copy]] = defaultdict(list)
        for item in copies:
            groups[item.group].append(item)
        pending = [sorted(items, key=lambda item: item.copy) for items in groups.values()
                   if all(item.answer is not None for item in items)
                   and any(item.extraction.method == UNRESOLVED for item in items)]
        import asyncio

        gate = asyncio.Semaphore(JUDGE_CONCURRENCY)

        async def run(items: list[Copy]) -> None:
            async with gate:
                await _resolve_group(items, judge, changed)

        await asyncio.gather(*(run(items) for items in pending))
    if random_fallback:
        for item in copies:
            current = changed.get(item.key, item.extraction)
            if current.method == UNRESOLVED:
                picked = random_choice(item.sample_id, list(item.options), seed)
                changed[item.key] = picked.model_copy(update={"judge_reply": current.judge_reply})
    return changed
