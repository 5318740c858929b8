"""The Ray side of the ray executor: the wire format and the actor that runs a backend on a worker.

What crosses Ray is JSON text we wrote, never pickled objects of ours: a call carries its batches as one
JSON array of arrays of requests and the reply comes back as JSON. `ImageRef.data` and `.b64` are left out
of normal dumps, so images are put back explicitly: images given as bytes or base64 travel as base64 text,
images given as files travel as their path, which every worker must be able to read (a shared filesystem,
or the same data on every node); `inline_images` reads such files on the driver and sends base64 instead.

This module imports no Ray: the actor class is wrapped by `ray.remote` in the driver, and a worker process
imports it by name (so mmgauge, at the driver's version, must be installed on every node).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import ImagePart, ImageRef, ModelResponse, ModelSpec
from mmgauge.core.version import __version__

_CALL: TypeAdapter[list[list[Request]]] = TypeAdapter(list[list[Request]])


def _json_safe(text: str) -> bool:
    # Base64 needs no JSON escaping; TSV cells may still carry line breaks, which do.
    return text.isascii() and '"' not in text and "\\" not in text and "\n" not in text and "\r" not in text


def _image_json(image: ImageRef, inline: bool, spliced: list[str], nonce: str) -> dict[str, str]:
    # Same precedence as ImageRef.load() (data, b64, path), so the worker decodes the bytes the driver would.
    sent = {} if image.path is None else {"path": image.path}
    if image.data is not None:
        text: str | None = base64.b64encode(image.data).decode("ascii")
    elif image.b64 is not None:
        text = image.b64
    else:
        text = base64.b64encode(image.load()).decode("ascii") if inline else None
    if text is not None and _json_safe(text):
        # json.dumps copies a 1 MB string at ~0.5 GB/s; a placeholder spliced afterwards costs almost nothing.
        sent["b64"] = f"{nonce}{len(spliced)}{nonce}"
        spliced.append(text)
    elif text is not None:
        sent["b64"] = text
    return sent


def encode_call(batches: Sequence[Sequence[Request]], *, inline_images: bool = False) -> str:
    """Batches as one JSON array of arrays of requests, with the images that normal dumps leave out."""
    spliced: list[str] = []
    nonce = uuid.uuid4().hex
    items: list[list[dict[str, Any]]] = []
    for batch in batches:
        items.append([])
        for request in batch:
            data = request.model_dump(mode="json")
            for m, message in enumerate(request.messages):
                for p, part in enumerate(message.content):
                    if isinstance(part, ImagePart):
                        image = _image_json(part.image, inline_images, spliced, nonce)
                        data["messages"][m]["content"][p]["image"] = image
            items[-1].append(data)
    pieces = json.dumps(items, ensure_ascii=False).split(nonce)
    pieces[1::2] = [spliced[int(number)] for number in pieces[1::2]]
    return "".join(pieces)


def decode_call(text: str) -> list[list[Request]]:
    return _CALL.validate_json(text)


class WireError(BaseModel):
    kind: Literal["endpoint", "user", "other"]
    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None

    @classmethod
    def of(cls, error: BaseException) -> WireError:
        if isinstance(error, UserError):
            endpoint = isinstance(error, EndpointError)
            return cls(
                kind="endpoint" if endpoint else "user",
                message=error.message,
                file=error.file,
                line=error.line,
                field=error.field,
            )
        return cls(kind="other", message=f"{type(error).__name__}: {error}")

    def exception(self) -> Exception:
        if self.kind == "other":
            return RuntimeError(f"a Ray worker failed: {self.message}")
        cls = EndpointError if self.kind == "endpoint" else UserError
        return cls(self.message, file=self.file, line=self.line, field=self.field)


class CallReply(BaseModel):
    """One actor call's answer: the responses of each batch it carried, or why it could not answer.

    Every reply also carries the worker backend's concurrency in force now (None where it is fixed) and,
    for multi-endpoint backends, each endpoint's limits, so the driver can show the endpoints' adaptive
    concurrency rather than the requests it has sent.
    """

    batches: list[list[ModelResponse]] = []
    error: WireError | None = None
    live_concurrency: int | None = None
    endpoints: list[dict[str, Any]] | None = None


class WorkerInfo(BaseModel):
    fingerprint: str = ""
    concurrency: int = 1
    version: str = ""
    host: str = ""
    pid: int = 0
    live_concurrency: int | None = None
    error: WireError | None = None


# ---- the worker: a Ray actor once the driver wraps it in ray.remote


class RayWorker:
    def __init__(self, spec_json: str, settings_json: str) -> None:
        from mmgauge.backends.registry import build_backend

        self.error: WireError | None = None
        try:
            spec = ModelSpec.model_validate_json(spec_json)
            self.backend = build_backend(spec, BackendSettings.model_validate_json(settings_json))
        except Exception as error:
            # Reported through info() as text: a raising constructor shows up as an opaque dead actor.
            self.error = WireError.of(error)
            return
        # Calls beyond the backend's own concurrency wait here, already on the worker, so it never idles.
        self.gate = asyncio.Semaphore(max(1, self.backend.concurrency))

    async def info(self) -> str:
        info = WorkerInfo(version=__version__, host=socket.gethostname(), pid=os.getpid())
        if self.error is not None:
            info.error = self.error
            return info.model_dump_json()
        await self.backend.start()  # its fingerprint must match the driver's, which started the same way
        info.fingerprint = self.backend.fingerprint()
        info.concurrency = self.backend.concurrency
        info.live_concurrency = self.backend.live_concurrency()
        try:
            # A model that cannot load (no GPU free, out of memory) stops the run now with its reason,
            # rather than failing every batch this worker is sent.
            await self.backend.load_model()
        except Exception as error:
            info.error = WireError.of(error)
        return info.model_dump_json()

    async def generate(self, payload: str) -> str:
        try:
            replies = await asyncio.gather(*(self._one(batch) for batch in decode_call(payload)))
        except Exception as error:
            reply = CallReply(error=WireError.of(error))
        else:
            reply = CallReply(batches=list(replies))
        reply.live_concurrency = self.backend.live_concurrency()
        # Duck-typed: only multi-endpoint backends (`openai`) keep per-endpoint limits.
        endpoint_stats = getattr(self.backend, "endpoint_stats", None)
        if callable(endpoint_stats):
            reply.endpoints = [dict(stats) for stats in endpoint_stats()]
        return reply.model_dump_json()

    async def _one(self, batch: list[Request]) -> list[ModelResponse]:
        async with self.gate:
            return await self.backend.generate(batch)

    async def close(self) -> None:
        if self.error is None:
            await self.backend.aclose()
