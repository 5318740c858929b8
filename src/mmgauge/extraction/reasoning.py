"""Removing a reasoning model's thinking from its answer, so that answer parsers read only the answer.

Reasoning models write their thoughts between tags before the answer: `<think>...</think> Yes`. The official
parsers read the first characters (MME) or the option letters (MMBench) of the whole text, so the thoughts
would decide the reading. `strip_reasoning` removes them.

What is removed (tags in any letter case, blocks anywhere in the text, several blocks allowed):

- closed blocks: `<think>...</think>`, `<thinking>...</thinking>`, `<reasoning>...</reasoning>`,
  `<reason>...</reason>`, `◁think▷...◁/think▷` (Kimi-VL) and `[THINK]...[/THINK]` (Magistral);
- a leading block whose opening tag is not in the text, `...</think>`: chat templates that put `<think>` into
  the prompt (DeepSeek-R1, Qwen3 thinking) make the model's text begin inside the block;
- an unclosed block (`<think>` with no closing tag, usually a reply cut off by the token limit): the thoughts
  never reached an answer, so everything from the opening tag on is removed and what stays is the text before
  it (most often nothing, which parsers read as no answer). Reading a half-finished thought as the answer
  would credit words the model had not committed to.

When something was removed the rest is stripped of surrounding white space; when nothing was, the text comes
back unchanged (byte for byte), so answers without reasoning are read exactly as before.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mmgauge.core.types import Extraction

#: (opening, closing) tag patterns of the block styles in use.
_TAGS: Final[tuple[tuple[str, str], ...]] = (
    (r"<think>", r"</think>"),
    (r"<thinking>", r"</thinking>"),
    (r"<reasoning>", r"</reasoning>"),
    (r"<reason>", r"</reason>"),
    (r"◁think▷", r"◁/think▷"),
    (r"\[THINK\]", r"\[/THINK\]"),
)
_OPEN: Final = re.compile("|".join(f"(?:{opening})" for opening, _ in _TAGS), re.IGNORECASE)
_CLOSE: Final = re.compile("|".join(f"(?:{closing})" for _, closing in _TAGS), re.IGNORECASE)
#: A closed block of any style; non-greedy, so two blocks are two matches and the answer between them stays.
_BLOCK: Final = re.compile(
    "|".join(f"(?:{opening}.*?{closing})" for opening, closing in _TAGS), re.IGNORECASE | re.DOTALL
)


def strip_reasoning(text: str) -> tuple[str, bool]:
    """The answer without its reasoning, and whether any reasoning was removed (see the module docstring)."""
    rest = text
    removed = False
    first_close = _CLOSE.search(rest)
    first_open = _OPEN.search(rest)
    if first_close is not None and (first_open is None or first_open.start() > first_close.start()):
        # The text starts inside a block whose opening tag was part of the prompt.
        rest = rest[first_close.end():]
        removed = True
    rest, count = _BLOCK.subn("", rest)
    removed = removed or count > 0
    unclosed = _OPEN.search(rest)
    if unclosed is not None:
        rest = rest[: unclosed.start()]
        removed = True
    return (rest.strip(), True) if removed else (text, False)


def text_read(text: str, extraction: Extraction | None) -> str:
    """The part of a model's `text` its answer was read from: without the reasoning when `extraction` says it
    was removed. A judge deciding an answer the rules could not read gets this, never the thoughts the
    rules were kept from (they would decide its reading as they would the parser's)."""
    if extraction is not None and extraction.reasoning_removed:
        return strip_reasoning(text)[0]
    return text


def marked_like(found: Extraction, rules: Extraction | None) -> Extraction:
    """`found` (a judge's or a fallback's reading of `text_read`) marked, like the rules' reading `rules`, as
    made without the reasoning when that one was."""
    if rules is not None and rules.reasoning_removed and not found.reasoning_removed:
        return found.model_copy(update={"reasoning_removed": True})
    return found
