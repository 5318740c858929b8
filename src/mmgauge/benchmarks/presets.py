"""Prompt presets: the wording each evaluation toolkit sends for a benchmark, as pure functions.

A preset turns a question's plain fields (`PromptFields`: question, options, hint, language) into a `Prompt`:
the user text, where the images go relative to it, and a system prompt if the toolkit sends one. Presets know
nothing about `Sample` metadata, so a benchmark's `build_messages` picks the fields and calls the preset.

Each benchmark keeps a `PresetTable`: its presets by name, the toolkits that lack the benchmark (asking for
them is a one-line error), and the fields a user template file may use (see `prompt_template.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mmgauge.benchmarks.prompt_template import load_template
from mmgauge.benchmarks.prompt_types import (
    IMAGE_ORDERS,
    ImageOrder,
    Preset,
    Prompt,
    PromptFields,
    TemplateStyle,
)
from mmgauge.core.errors import UserError

PAPER: Final = "paper"
VLMEVALKIT: Final = "vlmevalkit"
LMMS_EVAL: Final = "lmms-eval"
#: The preset names every benchmark answers to (some as unavailable), in the order `mmgauge list` shows them.
TOOLKITS: Final = (PAPER, VLMEVALKIT, LMMS_EVAL)
#: A `--prompt` value with one of these suffixes (or a path separator) is a template file, not a preset name.
TEMPLATE_SUFFIXES: Final = frozenset({".yaml", ".yml", ".txt", ".tmpl", ".template"})

#: The strings pandas' `read_csv` reads as missing by default (`pandas._libs.parsers.STR_NA_VALUES`, checked
#: on pandas 3.1.1). VLMEvalKit loads its TSVs with `pd.read_csv(sep="\t")`, so to VLMEvalKit a hint cell
#: holding one of these is no hint at all.
PANDAS_DEFAULT_NA: Final = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
    "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})


@dataclass(frozen=True)
class PresetTable:
    """A benchmark's presets, the toolkits that lack it, and the fields its template files may use."""

    benchmark: str
    presets: Mapping[str, Preset]
    #: preset name -> why that toolkit has no prompt for this benchmark
    unavailable: Mapping[str, str]
    #: template field name -> what it holds (named in errors)
    template_fields: Mapping[str, str]
    #: the values of `template_fields` for one question, given the template's option and hint formats
    template_values: Callable[[PromptFields, TemplateStyle], dict[str, str]]

    def names(self) -> list[str]:
        """The preset names in the order `mmgauge list` shows them."""
        known = [name for name in TOOLKITS if name in self.presets]
        return known + [name for name in self.presets if name not in TOOLKITS]

    def get(self, name: str) -> Preset:
        key = name.strip().lower()
        found = self.presets.get(key)
        if found is not None:
            return found
        why = self.unavailable.get(key)
        if why is not None:
            raise UserError(f"no '{key}' prompt for {self.benchmark}: {why}; choose {self.choices()}",
                            field="--prompt")
        raise UserError(f"unknown prompt '{name}' for {self.benchmark}; choose {self.choices()}",
                        field="--prompt")

    def resolve(self, value: str | None) -> Preset:
        """A preset by name (None: the paper's), or a user template file given by its path."""
        if value is None:
            return self.presets[PAPER]
        key = value.strip().lower()
        if key in self.presets or key in self.unavailable:
            return self.get(key)
        path = Path(value).expanduser()
        if path.is_file() or path.suffix.lower() in TEMPLATE_SUFFIXES or "/" in value:
            return load_template(path, self)
        return self.get(value)

    def choices(self) -> str:
        return ", ".join(self.names()) + ", or a template file (.yaml or .txt)"


def choice_values(fields: PromptFields, style: TemplateStyle) -> dict[str, str]:
    """The template values of a multiple-choice question (MMBench, M3GIA)."""
    hint = fields.hint
    return {
        "question": fields.question,
        "hint": hint,
        "hint_block": style.hint_format.format_map({"hint": hint}) if hint.strip() else "",
        "options": style.option_separator.join(
            style.option_format.format_map({"letter": letter, "text": text})
            for letter, text in fields.options.items()),
        "letters": ", ".join(fields.options),
        "language": fields.language,
    }


CHOICE_FIELDS: Final[Mapping[str, str]] = {
    "question": "the question text",
    "hint": "the hint text, empty when there is none",
    "hint_block": "hint_format filled with the hint, or nothing when there is no hint",
    "options": "every option written with option_format, joined with option_separator",
    "letters": "the option letters, e.g. 'A, B, C'",
    "language": "the prompt language",
}


__all__ = ["IMAGE_ORDERS", "ImageOrder", "Preset", "PresetTable", "Prompt", "PromptFields", "TemplateStyle"]
