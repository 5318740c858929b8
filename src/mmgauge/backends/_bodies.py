"""Request bodies serialised once, with large JSON-safe pieces (base64 images) spliced in after encoding.

A provider's `build_body` puts `blob(data)` where an image's base64 goes; `encode` runs the JSON encoder over
the small rest and then replaces each placeholder by its bytes. A 50 KB image then costs one copy instead of
a pass of the encoder, which was most of a request's CPU.
"""

from __future__ import annotations

import json
import os
from typing import Any

#: One encoder for every body (json.dumps with options builds a new one per call).
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class BodyEncoder:
    """Placeholders for blobs, and the bytes of a body with the blobs in their places."""

    def __init__(self) -> None:
        # Placeholders carry a random part, so no prompt text can be mistaken for one.
        self._nonce = os.urandom(8).hex()
        self._blobs: list[tuple[bytes, bytes]] = []

    def blob(self, data: bytes) -> str:
        """A placeholder for `data` (JSON-safe ASCII such as base64) in the body being built."""
        token = f"<<{self._nonce}:{len(self._blobs)}>>"
        self._blobs.append((token.encode("ascii"), data))
        return token

    def encode(self, body: dict[str, Any]) -> bytes:
        """`body` as JSON bytes, each placeholder made since the last call replaced by its blob."""
        try:
            raw = _JSON.encode(body).encode("utf-8")
            for token, data in self._blobs:
                raw = raw.replace(token, data, 1)
            return raw
        finally:
            self._blobs = []

    def discard(self) -> None:
        """Forget the placeholders made for a body that will not be encoded (its building failed)."""
        self._blobs = []
