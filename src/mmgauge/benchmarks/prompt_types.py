"""The plain types of prompt presets: the fields a prompt is built from, the prompt, a named preset."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from mmgauge.core.types import ImagePart, ImageRef, Message, TextPart

#: Where the images go relative to the prompt text inside the one user message.
ImageOrder = Literal["before", "after"]
IMAGE_ORDERS: Final[tuple[ImageOrder, ...]] = ("before", "after")


@dataclass(frozen=True)
class PromptFields:
    """The plain fields a prompt is built from. `options` maps letter to text in the order shown; `hint` is ""
    when the question has none; `language` is the benchmark's prompt language ("en"/"cn" for MMBench, a
    language name such as "english" for M3GIA, "" for MME)."""

    question: str
    options: Mapping[str, str] = field(default_factory=dict)
    hint: str = ""
    language: str = ""


@dataclass(frozen=True)
class Prompt:
    """What a preset produces: the user text, the image placement and an optional system prompt."""

    text: str
    images: ImageOrder = "before"
    system: str | None = None

    def messages(self, images: Sequence[ImageRef]) -> list[Message]:
        """The chat messages: a system message when there is a system prompt, then one user message."""
        text: list[TextPart | ImagePart] = [TextPart(text=self.text)]
        pictures: list[TextPart | ImagePart] = [ImagePart(image=image) for image in images]
        content = pictures + text if self.images == "before" else text + pictures
        user = Message(role="user", content=content)
        return [user] if self.system is None else [Message.system(self.system), user]


@dataclass(frozen=True)
class Preset:
    """One named prompt wording. `source` says where the text comes from (file and commit) for `mmgauge list`
    and the manifest; `key` identifies the wording for the cache key and changes whenever the wording does."""

    name: str
    source: str
    key: str
    build: Callable[[PromptFields], Prompt]

    def __call__(self, fields: PromptFields) -> Prompt:
        return self.build(fields)


@dataclass(frozen=True)
class TemplateStyle:
    """How a template file writes each option and the hint block (see `prompt_template.py`)."""

    option_format: str = "{letter}. {text}"
    option_separator: str = "\n"
    hint_format: str = "Hint: {hint}\n"
