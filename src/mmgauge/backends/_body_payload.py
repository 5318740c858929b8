"""A request `Body` as aiohttp sends it: its pieces written one after the other, its length known beforehand
(so it goes with a Content-Length, as one bytes object would, never chunked)."""

from __future__ import annotations

from typing import Any

from aiohttp.abc import AbstractStreamWriter
from aiohttp.payload import Payload

from mmgauge.backends._bodies import Body


class BodyPayload(Payload):
    _value: Body
    _autoclose = True  # bytes in memory: nothing to close

    def __init__(self, body: Body, **kwargs: Any) -> None:
        super().__init__(body, content_type="application/json", **kwargs)
        self._size = body.size

    async def write(self, writer: AbstractStreamWriter) -> None:
        for part in self._value.parts:
            await writer.write(part)

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return bytes(self._value).decode(encoding, errors)
