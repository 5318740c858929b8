"""The MME tool's yes/no rule (`calculation.py`, `parse_pred_ans`) over one answer, as plainly as it reads:
the oracle of `mmgauge.extraction.yesno_columns`. Returns (answer, method)."""

from __future__ import annotations


def parse_official(text: str) -> tuple[str | None, str]:
    lowered = text.lower()
    if lowered in ("yes", "no"):
        return lowered, "official-exact"
    prefix = lowered[:4]
    if "yes" in prefix:
        return "yes", "official-prefix"
    if "no" in prefix:
        return "no", "official-prefix"
    return None, "official-other"
