"""What the embedded engine's text model is given: our system prompt, then the OCR text and the question.

The wording is part of the engine's fingerprint (`PROMPT_VERSION` in `_embedded_engine.py`): change one,
bump the other.
"""

from __future__ import annotations

SYSTEM_PROMPT = (
    "You answer questions about an image. You cannot see the image; you only get the text that OCR found "
    "in it. Answer using only that text and the question. Follow the answer format the question asks for "
    "and keep the answer short."
)
NO_TEXT = "(none)"
#: The question an option text's prior likelihood is taken after: the chat's format, nothing asked.
CONTENT_FREE = "Answer:"
# OCR text beyond this many characters is cut, so a page of text cannot push the question out of context.
MAX_OCR_CHARS = 2000


def user_message(ocr_text: str, text: str) -> str:
    """The user turn: the OCR text first, then the question as the benchmark wrote it."""
    found = ocr_text.strip() or NO_TEXT
    if len(found) > MAX_OCR_CHARS:
        found = found[:MAX_OCR_CHARS].rstrip() + " ..."
    return f"Text found in the image: {found}\n\n{text}"


def build_messages(system: str | None, ocr_text: str, text: str) -> list[dict[str, str]]:
    """The chat: our system message (plus the caller's system prompt, if any) and one user message."""
    system_text = SYSTEM_PROMPT if not system else f"{SYSTEM_PROMPT}\n\n{system.strip()}"
    return [
        {"role": "system", "content": system_text},
        {"role": "user", "content": user_message(ocr_text, text)},
    ]
