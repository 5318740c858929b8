"""The names of the yes/no parsers (`extraction.yesno`), apart from the parsers themselves: checking a name a
user typed needs no answer types (and so no pydantic models) loaded."""

from __future__ import annotations

from typing import Final, Literal

ParserName = Literal["official", "words"]
PARSERS: Final[tuple[str, ...]] = ("official", "words")
