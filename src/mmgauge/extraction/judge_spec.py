"""A judge as callers give it: None or "none" (the rules only), a judge model spec, or a `Judge`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the judge (sqlite, asyncio, ssl) and the backends load only where a judge is asked for
    from mmgauge.extraction.judge import Judge


def no_judge(judge: str | Judge | None) -> bool:
    """Whether `judge` asks for the rules only."""
    return judge is None or (isinstance(judge, str) and judge.strip().lower() == "none")


def judge_for(judge: str | Judge | None) -> Judge | None:
    """The `Judge` that `judge` names (a spec's backend is loaded now), or None for the rules only."""
    if no_judge(judge):
        return None
    from mmgauge.extraction.judge import Judge

    if judge is None or isinstance(judge, Judge):
        return judge
    from mmgauge.backends.spec import load_backend

    _, backend = load_backend(judge)
    return Judge(backend)


def given_judge(judge: object) -> bool:
    """Whether the caller gave a `Judge` itself (then the caller, not the callee, closes its backend)."""
    from mmgauge.extraction.judge import Judge

    return isinstance(judge, Judge)
