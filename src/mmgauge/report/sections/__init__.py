"""Per-benchmark report sections: each benchmark's own (its `report_section` hook), imported only when a run
holds that benchmark; General-Level's, which is no benchmark, is here.

A benchmark without a section (or not installed here), or whose stored result does not match its section's
result model (an older or newer schema), gets the generic section: the run's headline rows and the raw result
values, with a note saying why.
"""

from __future__ import annotations

import importlib
from typing import Final

from pydantic import ValidationError

from mmgauge.benchmarks.registry import known_class
from mmgauge.parts.report.section import Card, Section, generic_section
from mmgauge.parts.report.views import BenchView, Row

#: Sections of what is not a benchmark: name -> module defining `SECTION`.
SECTIONS: dict[str, str] = {"general_level": "mmgauge.report.sections.general_level"}
_ALIASES: Final = {"general-level": "general_level", "generallevel": "general_level"}


def section_for(name: str) -> Section:
    key = name.strip().lower()
    target = SECTIONS.get(_ALIASES.get(key, key))
    if target is not None:
        section: Section = importlib.import_module(target).SECTION
        return section
    cls = known_class(key)
    own: Section | None = cls.hook("report_section") if cls is not None else None
    if own is not None:
        return own
    return generic_section(cls.display_name() if cls is not None else name)


def checked(bench: BenchView) -> tuple[Section, str | None]:
    """The section for `bench`, or the generic one and the reason when its result cannot be read."""
    section = section_for(bench.name)
    if bench.result is None:
        if section.needs_result:
            return generic_section(bench.name), "no scored result for this benchmark (run not finished?)"
        return section, None
    try:
        section.validate(bench.result)
    except (ValidationError, ValueError, KeyError) as err:
        reason = f"the stored result does not match the {section.title} result model ({type(err).__name__})"
        return generic_section(bench.name), reason
    return section, None


def category_of(row: Row) -> str:
    return section_for(row.benchmark).category(row)


__all__ = ["SECTIONS", "Card", "Section", "category_of", "checked", "section_for"]
