"""The M3GIA release's languages: their names (the release's file names, `<language>_v1.parquet`, and those
of M3GIA's answer files, `<language>.jsonl`) and the short codes accepted for them.

Here, below the benchmarks and the backends, because both read files named after them: the benchmark its
data, the replay backend the answer files of M3GIA's own inference script.
"""

from __future__ import annotations

from typing import Final

from mmgauge.core.errors import UserError

#: Canonical language names (the release's file names) and the short codes accepted for them.
LANGUAGES: Final[tuple[str, ...]] = ("english", "chinese", "french", "spanish", "portuguese", "korean")
CODES: Final[dict[str, str]] = {
    "en": "english", "zh": "chinese", "fr": "french", "es": "spanish", "sp": "spanish", "pt": "portuguese",
    "ko": "korean",
}


def valid_languages() -> str:
    return ", ".join([*LANGUAGES, *(f"{code} ({name})" for code, name in CODES.items())])


def language_name(value: str, field: str = "--language") -> str:
    """Canonical name for a language name or code (any case); a UserError lists the valid ones."""
    key = value.strip().lower()
    name = CODES.get(key, key)
    if name not in LANGUAGES:
        raise UserError(f"unknown M3GIA language '{value}'; valid: {valid_languages()}", field=field)
    return name
