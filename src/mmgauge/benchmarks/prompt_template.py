"""User prompt templates: a small, safe file format for a benchmark's prompt.

A `.yaml` / `.yml` file is a mapping:

    template: |                          (required) the user text, with {field} placeholders
      {hint_block}Question: {question}
      {options}
      Answer with the letter only.
    option_format: "{letter}. {text}"    how each option is written (fields: letter, text)
    option_separator: "\\n"               what goes between two options
    hint_format: "Hint: {hint}\\n"        what {hint_block} holds when the question has a hint (field: hint)
    system: "You are a careful grader."  a system prompt, sent as is (no placeholders)
    images: before                       where the images go: before or after the text

Any other file is the template text itself, without its final line break. Which fields exist depends on the
benchmark (`PresetTable.template_fields`). Placeholders are `str.format` fields with plain names only: no
attribute or index access, no conversion or format spec, no positional `{}`; `{{` and `}}` are literal
braces. Nothing in the file is evaluated, and an unknown field is a one-line error naming field and file.
"""

from __future__ import annotations

import hashlib
import json
import string
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mmgauge.benchmarks.prompt_types import (
    IMAGE_ORDERS,
    ImageOrder,
    Preset,
    Prompt,
    PromptFields,
    TemplateStyle,
)
from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    from mmgauge.benchmarks.presets import PresetTable

YAML_SUFFIXES: Final = frozenset({".yaml", ".yml"})
KEYS: Final = ("template", "option_format", "option_separator", "hint_format", "system", "images")
OPTION_FIELDS: Final = frozenset({"letter", "text"})
HINT_FIELDS: Final = frozenset({"hint"})


@dataclass(frozen=True)
class Template:
    """A checked template file: every placeholder is a field its benchmark knows."""

    path: Path
    text: str
    style: TemplateStyle
    system: str | None
    images: ImageOrder

    def key(self) -> str:
        """A digest of what the file says (not of its bytes): reformatting the YAML keeps the cache."""
        spec = [self.text, self.style.option_format, self.style.option_separator, self.style.hint_format,
                self.system, self.images]
        return "template:" + hashlib.sha256(json.dumps(spec).encode()).hexdigest()[:16]


def load_template(path: Path, table: PresetTable) -> Preset:
    """The preset a template file describes, checked against `table`'s fields before any request is sent."""
    template = read_template(path, table)

    def build(fields: PromptFields) -> Prompt:
        text = template.text.format_map(table.template_values(fields, template.style))
        return Prompt(text=text, images=template.images, system=template.system)

    return Preset(name=f"template {path}", source=f"user template file {path}", key=template.key(),
                  build=build)


def read_template(path: Path, table: PresetTable) -> Template:
    raw = _read_text(path)
    if path.suffix.lower() in YAML_SUFFIXES:
        spec = _yaml_mapping(raw, path)
    else:
        spec = {"template": raw[:-2] if raw.endswith("\r\n") else raw.removesuffix("\n")}
    text = _string(spec, "template", path, raw, required=True)
    if not text.strip():
        raise UserError("the prompt template is empty", file=str(path), field="template")
    style = TemplateStyle(
        option_format=_string(spec, "option_format", path, raw) or TemplateStyle.option_format,
        option_separator=_string(spec, "option_separator", path, raw, empty_ok=True,
                                 default=TemplateStyle.option_separator),
        hint_format=_string(spec, "hint_format", path, raw) or TemplateStyle.hint_format,
    )
    _check_fields(text, table.template_fields, "template", path, raw, table.benchmark)
    _check_fields(style.option_format, OPTION_FIELDS, "option_format", path, raw, "an option_format")
    _check_fields(style.hint_format, HINT_FIELDS, "hint_format", path, raw, "a hint_format")
    images = _string(spec, "images", path, raw) or "before"
    if images not in IMAGE_ORDERS:
        raise UserError(f"images must be one of: {', '.join(IMAGE_ORDERS)} (got '{images}')",
                        file=str(path), line=_line_of(raw, "images:"), field="images")
    image_order: ImageOrder = "before" if images == "before" else "after"
    system = _string(spec, "system", path, raw) or None
    return Template(path=path, text=text, style=style, system=system, images=image_order)


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UserError("prompt template file not found", file=str(path)) from None
    except OSError as error:
        raise UserError(f"cannot read the prompt template: {error.strerror}", file=str(path)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        message = f"the prompt template is not UTF-8 text (byte {error.start})"
        raise UserError(message, file=str(path)) from None


def _yaml_mapping(raw: str, path: Path) -> dict[str, Any]:
    import yaml

    try:
        loaded = yaml.safe_load(raw)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = None if mark is None else int(mark.line) + 1
        problem = str(getattr(error, "problem", None) or "not valid YAML")
        raise UserError(f"cannot read the prompt template as YAML: {problem}", file=str(path),
                        line=line) from None
    if not isinstance(loaded, dict):
        raise UserError("a YAML prompt template must be a mapping with a 'template' key", file=str(path))
    for key in loaded:
        if key not in KEYS:
            raise UserError(f"unknown key '{key}'; a prompt template may have: {', '.join(KEYS)}",
                            file=str(path), line=_line_of(raw, f"{key}:"), field=str(key))
    return {str(key): value for key, value in loaded.items()}


def _string(spec: dict[str, Any], key: str, path: Path, raw: str, *, required: bool = False,
            empty_ok: bool = False, default: str = "") -> str:
    value = spec.get(key)
    if value is None:
        if required:
            raise UserError("the prompt template has no 'template' key", file=str(path), field=key)
        return default
    if not isinstance(value, str):
        raise UserError(f"'{key}' must be text (quote it), not {type(value).__name__}", file=str(path),
                        line=_line_of(raw, f"{key}:"), field=key)
    if not value and not empty_ok:
        return default
    return value


def _check_fields(text: str, allowed: Collection[str], key: str, path: Path, raw: str, owner: str) -> None:
    """Every placeholder in `text` is a plain name in `allowed`; otherwise a one-line error naming it."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as error:
        raise UserError(f"cannot read the {key}: {error} (write {{{{ and }}}} for literal braces)",
                        file=str(path), field=key) from None
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        shown = shown.replace("\n", "\\n")
        line = _line_of(raw, "{" + name)
        if not name.isidentifier() or conversion or spec:
            message = f"placeholder {shown} in {key}: only plain field names like {{question}} are allowed"
            raise UserError(message, file=str(path), line=line, field=shown)
        if name not in allowed:
            known = ", ".join(sorted(allowed))
            raise UserError(f"unknown field {{{name}}} in {key}; {owner} template knows: {known}",
                            file=str(path), line=line, field=name)


def _line_of(raw: str, needle: str) -> int | None:
    at = raw.find(needle)
    return None if at < 0 else raw.count("\n", 0, at) + 1
