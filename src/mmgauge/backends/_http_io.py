"""Sending one request and reading its reply safely: transport failures as `Attempt`s, a size cap that holds
after decompression, and a sane Retry-After.

The session runs with aiohttp's automatic decompression off: aiohttp inflates each received chunk whole,
so a few kilobytes of gzip could become gigabytes in memory before any cap is checked. Here the body is read
in chunks and inflated with an output limit, so neither the raw nor the decoded body can exceed
`max_response_bytes`.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import re
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timezone
from typing import TYPE_CHECKING, Any

from mmgauge.backends._bodies import Body
from mmgauge.backends._endpoints import Failure
from mmgauge.core.types import Usage

if TYPE_CHECKING:
    import aiohttp

#: What the session asks servers for; exactly what `read_body` can decode with a bound.
ACCEPT_ENCODING = "gzip, deflate"

#: A Retry-After further away than this is nonsense (a broken clock or header), not a request to wait.
RETRY_AFTER_NONSENSE_S = 24 * 3600.0

_CHUNK = 64 * 1024


class BodyError(Exception):
    """The reply body cannot be used: too large, or in an encoding that cannot be decoded."""


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); None if absent or nonsense.

    A date in the past means "now" (0). Negative, infinite, NaN or unparseable values, and anything more than
    a day away, are ignored: the caller backs off by its own rule instead. Callers cap the result.
    """
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None  # a header we cannot read is no reason to fail the request
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)  # HTTP dates are always GMT
        try:
            seconds = max(0.0, parsed.timestamp() - (time.time() if now is None else now))
        except (OverflowError, OSError, ValueError):
            return None
    if not math.isfinite(seconds) or seconds < 0 or seconds > RETRY_AFTER_NONSENSE_S:
        return None
    return seconds


def _decoder(encoding: str) -> zlib._Decompress | None:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        # zlib-wrapped per the RFC; auto-detecting also accepts servers that label gzip as deflate.
        return zlib.decompressobj(32 + zlib.MAX_WBITS)
    raise BodyError(f"reply uses content encoding '{encoding}', which was not asked for")


async def read_body(reply: aiohttp.ClientResponse, limit: int) -> bytes:
    """The reply's decoded body, or BodyError once it (raw or decoded) exceeds `limit` bytes."""
    too_large = BodyError(f"reply body larger than {limit} bytes (max_response_bytes)")
    length = reply.content_length
    if length is not None and length > limit:
        raise too_large
    decoder = _decoder(reply.headers.get("Content-Encoding", ""))
    if decoder is None and length is not None:
        return await reply.read()  # bounded by Content-Length, already checked
    raw_size = 0
    out: list[bytes] = []
    size = 0
    async for chunk in reply.content.iter_chunked(_CHUNK):
        raw_size += len(chunk)
        if raw_size > limit:
            raise too_large
        if decoder is not None:
            try:
                chunk = decoder.decompress(chunk, limit - size + 1)
            except zlib.error as error:
                raise BodyError(f"reply body does not decompress: {error}") from None
            if decoder.unconsumed_tail:
                raise too_large  # more output is waiting than the cap allows
        size += len(chunk)
        if size > limit:
            raise too_large
        out.append(chunk)
    if decoder is not None:
        tail = decoder.flush()
        size += len(tail)
        if size > limit:
            raise too_large
        out.append(tail)
    return b"".join(out)


def snippet(raw: bytes, limit: int = 200) -> str:
    """The start of a body as one printable line, for error messages."""
    return raw[:limit].decode("utf-8", "replace").replace("\r", " ").replace("\n", " ")


def _error_fields(data: Any) -> tuple[str | None, list[str]]:
    """(message, [code, type, status]) of an error body as the servers write it: OpenAI and llama.cpp
    ({"error": {"message", "type", "code"}}), vLLM (0.33 as OpenAI, the code a number; before 0.10
    {"object": "error", "message", "type", "code"}),
    Anthropic ({"type": "error", "error": {"type", "message"}}), Google ({"error": {"code": 400, "message",
    "status": "INVALID_ARGUMENT"}}), FastAPI ({"detail": ...})."""
    if not isinstance(data, dict):
        return None, []
    inner = data.get("error")
    if isinstance(inner, str):
        return inner, []
    found = inner if isinstance(inner, dict) else data
    message = found.get("message", data.get("detail"))
    labels = []
    for name in ("code", "type", "status"):
        value = found.get(name)
        # A code that repeats the status (llama.cpp: "code": 500, LiteLLM: "code": "500") or a bare "error"
        # type says nothing new.
        if not isinstance(value, str) or value in ("", "error") or value.isdigit():
            continue
        if value not in labels:
            labels.append(value)
    return (message if isinstance(message, str) else None), labels


#: LiteLLM's proxy wraps an upstream's error as "litellm.BadRequestError: ContextWindowExceededError:
#: OpenAIException - <the upstream's message>", then notes of its own on later lines (model group, fallbacks).
_LITELLM_WRAPPING = re.compile(r"^(?:litellm\.\w+: )+(?:\w+: )?(?:\w+Exception - )?")


def _upstream_message(message: str) -> tuple[str, list[str]]:
    """A gateway's message as the upstream's own first line, marked as relayed, with the code the gateway
    replaced (LiteLLM's ContextWindowExceededError is the upstream's `context_length_exceeded`)."""
    wrapping = _LITELLM_WRAPPING.match(message)
    if wrapping is None:
        return message, []
    labels = ["context_length_exceeded"] if "ContextWindowExceededError" in wrapping.group(0) else []
    return "(via LiteLLM) " + message[wrapping.end():].split("\n")[0], labels


_SAMPLING_NAMES = ("temperature", "top_p", "top_k")
_REFUSAL_WORDS = ("deprecated", "not permitted", "not supported", "does not support", "unsupported")


def refuses_sampling(message: str) -> bool:
    """Whether a 400's message says the model takes no sampling parameter, as Anthropic ("`temperature` is
    deprecated for this model.", "temperature: Extra inputs are not permitted") and OpenAI ("Unsupported
    value: 'temperature' does not support 0 with this model") word it."""
    text = message.lower()
    return any(name in text for name in _SAMPLING_NAMES) and any(word in text for word in _REFUSAL_WORDS)


def error_reply(status: int, raw: bytes, limit: int = 200) -> tuple[str, str]:
    """(one line for a non-2xx reply, a short label to group such errors by).

    The server's JSON error is read before anything is shortened: its code and type (e.g.
    `context_length_exceeded`) always stay in the line, only a long message is cut at `limit` characters.
    """
    try:
        message, labels = _error_fields(json.loads(raw))
    except ValueError:
        message, labels = None, []
    if message is not None:
        message, replaced = _upstream_message(message)
        labels = [*replaced, *labels]
    label = " ".join([f"HTTP {status}", *labels[:1]])
    if message is None:
        return f"HTTP {status}: {snippet(raw, limit)}", label
    text = " ".join(message.split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    tags = f" [{', '.join(labels)}]" if labels else ""
    return f"HTTP {status}{tags}: {text}", label


class ReplyError(Exception):
    """A 2xx reply whose body is not a usable answer (the provider's parser raises it).

    Normally a malformed reply, retried. `permanent`: a well-formed refusal of this request (Gemini's safety
    block), the same on every try, so it is the request's own error at once, grouped under `code`.
    """

    def __init__(self, message: str, *, permanent: bool = False, code: str | None = None) -> None:
        super().__init__(message)
        self.permanent = permanent
        self.code = code

    def attempt(self, redact: Callable[[str], str]) -> Attempt:
        """This failure as an attempt of the HTTP wrapper (secrets removed by `redact`)."""
        if self.permanent:
            return Attempt(redact(str(self)), retry=False, replied=True, code=self.code)
        return Attempt(redact(f"malformed reply ({self})"), retry=True, replied=True, code="malformed reply")


@dataclass
class Reply:
    text: str | None
    usage: Usage = field(default_factory=Usage)
    #: The answer stopped at the token limit (OpenAI finish_reason "length", Anthropic "max_tokens").
    truncated: bool = False


class Attempt(Exception):
    """One failed attempt: retryable or not, what it says about the endpoint, a server-requested delay."""

    def __init__(
        self,
        message: str,
        *,
        retry: bool,
        kind: Failure = "other",
        delay: float | None = None,
        status: int | None = None,
        replied: bool = False,
        code: str | None = None,
        body: bytes | None = None,
    ) -> None:
        super().__init__(message)
        self.retry = retry
        self.kind = kind
        self.delay = delay
        self.status = status
        self.replied = replied
        #: A short label that failures of the same kind share (`HTTP 400 context_length_exceeded`).
        self.code = code or message.partition(":")[0]
        #: The error reply's body, to tell a server that answers every try the same way.
        self.body = body


async def post(
    session: aiohttp.ClientSession, url: str, body: Body, *, max_bytes: int, timeout_s: float,
    redact: Callable[[str], str],
) -> tuple[int, str | None, bytes, bool]:
    """POST `body` once: the status, the Retry-After header, the body (decompressed, at most `max_bytes`) and
    whether a gateway says another model answered (LiteLLM's `x-litellm-attempted-fallbacks` above 0).

    A failure to send or read is an `Attempt` saying whether to retry and what it says about the endpoint;
    `redact` removes secrets from messages that may quote a URL.
    """
    import aiohttp

    from mmgauge.backends._body_payload import BodyPayload

    try:
        async with session.post(url, data=BodyPayload(body)) as response:
            status = response.status
            # LiteLLM's proxy relays the upstream's Retry-After as `llm_provider-retry-after`.
            headers = response.headers
            retry_after = headers.get("Retry-After") or headers.get("llm_provider-retry-after")
            fallback = headers.get("x-litellm-attempted-fallbacks", "0").strip() not in ("", "0")
            raw = await read_body(response, max_bytes)
    except BodyError as error:
        # Deterministic for this request: retrying would fetch the same oversized body again.
        raise Attempt(str(error), retry=False, replied=True) from None
    except aiohttp.ServerTimeoutError as error:
        # The only socket-level timeout set is sock_connect, so this is a host that does not answer.
        raise Attempt(f"cannot connect: {error}", retry=True, kind="connect") from None
    except asyncio.TimeoutError:
        raise Attempt(f"timed out after {timeout_s:g} s", retry=True, kind="overload") from None
    except aiohttp.ClientConnectorError as error:
        # Refused, name not resolved, TLS handshake failed: nothing was sent.
        raise Attempt(redact(f"cannot connect: {error}"), retry=True, kind="connect") from None
    except (aiohttp.ClientError, OSError) as error:
        raise Attempt(redact(f"connection failed: {type(error).__name__}: {error}"), retry=True) from None
    return status, retry_after, raw, fallback


def set_headers(headers: dict[str, str], extra: dict[str, str]) -> None:
    """Set `extra` in `headers`, replacing any name that differs only in case (HTTP names are not cased)."""
    for name, value in extra.items():
        for existing in [k for k in headers if k.lower() == name.lower()]:
            del headers[existing]
        headers[name] = value


def token_count(value: Any) -> int | None:
    """A usage count if it is a non-negative integer (not a bool, float or text), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


#: Replies that say nothing about the request, however alike: a server behind a proxy did not answer (408,
#: 502, 504), or a gateway names no cause (LiteLLM drops the upstream's body and request id: "Error code:
#: 500", "Connection error.", "Request timed out").
_NOT_ANSWERED = frozenset({408, 502, 504})
_NO_CAUSE = re.compile(r"(connection error|timed out|error code: \d{3})\.?$", re.IGNORECASE)


def same_reply_again(failure: Attempt, previous: Attempt | None, overload: frozenset[int]) -> Attempt:
    """`failure`, not to be retried if the request's previous try got the very same reply (status and body).

    llama.cpp-based servers answer any exception with an instant 500 (images sent to a text-only chat
    template): every retry gets the same body, and backing off between them only wastes minutes. A transient
    error differs between tries (a request id, a new message); `overload` replies (429, 503) are load signals
    however alike they read, and are retried as ever; so are replies that name no cause (`_NO_CAUSE`).
    """
    if (previous is None or not failure.retry or failure.status is None or failure.body is None
            or failure.status in overload or failure.status in _NOT_ANSWERED
            or _NO_CAUSE.search(str(failure)) is not None
            or (previous.status, previous.body) != (failure.status, failure.body)):
        return failure
    return Attempt(f"{failure} (the same reply to every try: not retried)", retry=False, kind=failure.kind,
                   status=failure.status, replied=True, code=failure.code)
