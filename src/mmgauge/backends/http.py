"""The machinery every HTTP model API shares; a provider adds only its wire format.

A provider subclass of `HTTPBackend` says where requests go (`endpoint_url`), how it authenticates
(`auth_headers`, `protocol_headers`), the JSON body for a `Request` (`build_body`), how to read a reply
(`parse_reply`), where its model card is (`model_card_url`, `served_card`) and which statuses mean what
(`retry_status`, `overload_status`, `fatal_status`). Everything else is here:

- several endpoints per model with adaptive concurrency and balancing (`_endpoints.py`);
- the spec grammar `MODEL@URL|URL|...` (`_urls.py`), for built-in and plug-in providers alike;
- retries of transient failures (429, 5xx, timeouts, dropped connections, malformed or empty replies):
  at once on another open endpoint if there is one, otherwise after the server's Retry-After (capped at
  `backoff_max_s`; nonsense values ignored) or exponential backoff with full jitter. A reply identical to the
  request's previous one (status and body, not an overload) is not retried again: it is the request's own
  error. A try that could not connect while another endpoint is live does not count against the retries;
- error replies read as the server's JSON error (message, type, code) before they are shortened;
- fail fast: when no endpoint can be reached (refused, unresolvable, TLS failure) before any replied, or for
  `unreachable_timeout_s` after, every request raises `EndpointError` (one line naming the URLs);
- every reply is one request's business: a bad body, usage or status is that request's error, never an
  exception; bodies are capped at `max_response_bytes` after decompression;
- secrets (the API key, credential headers) are redacted from every error and answer it hands back;
- the model fingerprint: provider, model, endpoint URLs, what the endpoints report serving (`start()`),
  request options and `cache_namespace`; a model name an endpoint's listing lacks is a notice;
- `finish_reason: "length"` (as the provider reads it) marks the answer truncated; a reply the provider reads
  as a refusal of the request (a safety block) is that request's error at once, not retried.

A request that still fails comes back with `error` set: it is recorded, never scored or cached, and the
next run of the same command retries it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import threading
import time
from abc import abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from mmgauge.backends import _identity
from mmgauge.backends._bodies import Body, BodyEncoder
from mmgauge.backends._endpoints import Endpoint, EndpointPool, EndpointStats, Failure
from mmgauge.backends._http_io import (
    ACCEPT_ENCODING,
    Attempt,
    Reply,
    ReplyError,
    error_reply,
    post,
    refuses_sampling,
    retry_after_seconds,
    same_reply_again,
    set_headers,
    snippet,
    token_count,
)
from mmgauge.backends._images import COMMON_TYPES, ImageEncoder
from mmgauge.backends._urls import endpoint_spec, spec_endpoints
from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.backends.request_options import RequestOptions
from mmgauge.core import secrets
from mmgauge.core.errors import EndpointError, UserError
from mmgauge.core.types import ModelResponse, ModelSpec

if TYPE_CHECKING:
    import aiohttp

# What a provider module needs besides HTTPBackend.
__all__ = ["HTTPBackend", "Reply", "ReplyError", "token_count"]

#: Seconds to wait for a TCP connection: longer means the host is gone; fail over instead of waiting.
CONNECT_TIMEOUT_S = 10.0

class HTTPBackend(Backend):
    #: The spec prefix, e.g. "openai"; also the fingerprint prefix.
    provider: ClassVar[str]
    #: Used when a spec gives no URL (None: a URL is required).
    default_base_url: ClassVar[str | None] = None
    retry_status: ClassVar[frozenset[int]] = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
    #: Statuses that mean "too much load": they halve the endpoint's concurrency.
    overload_status: ClassVar[frozenset[int]] = frozenset({429, 503})
    #: Credentials or model refused: an endpoint that answers this before ever answering is disabled.
    fatal_status: ClassVar[frozenset[int]] = frozenset({401, 403, 404})
    #: The `request` options this provider understands.
    request_options: ClassVar[frozenset[str]] = frozenset({"extra_body", "headers"})
    #: Body keys `extra_body` may not set: the backend owns them (messages) or a flag does (temperature).
    reserved_body_keys: ClassVar[frozenset[str]] = frozenset({"model", "messages", "stream"})
    #: The image types the API takes as they are; any other is sent as a PNG of the same pixels.
    image_types: ClassVar[frozenset[str]] = COMMON_TYPES

    def __init__(
        self,
        base_url: str | Sequence[str],
        model: str,
        *,
        api_key_env: str | None = None,
        settings: BackendSettings | None = None,
        request: RequestOptions | None = None,
    ) -> None:
        self.settings = settings or BackendSettings()
        bases = [base_url] if isinstance(base_url, str) else list(base_url)
        if not bases:
            raise UserError(f"the {self.provider} backend needs at least one base URL", field="--model")
        self.base_urls = [url.rstrip("/") for url in bases]
        self.base_url = self.base_urls[0]
        self.model = model
        self.options = request or RequestOptions()
        self.options.check_for(self.provider, self.request_options, self.reserved_body_keys)
        self.ceiling = self.settings.concurrency
        # The runner may keep every endpoint's ceiling busy; the per-endpoint limits hold the rest back.
        self.concurrency = self.ceiling * len(self.base_urls)
        self.batch_size = 1
        # A password in a URL (http://user:pass@host) is a secret like any key.
        self._url_secrets = [p for p in (urlsplit(url).password for url in self.base_urls) if p]
        self._secrets: list[str] = list(self._url_secrets)
        for secret in self._url_secrets:
            secrets.remember(secret)
        urls = [self.endpoint_url(url) for url in self.base_urls]
        self.pool = EndpointPool(
            urls,
            labels=[self._redact(url) for url in urls],
            ceiling=self.ceiling,
            backoff_base_s=self.settings.backoff_base_s,
            backoff_max_s=self.settings.backoff_max_s,
            unreachable_timeout_s=self.settings.unreachable_timeout_s,
        )
        self.images = ImageEncoder(accepted=self.image_types)
        self._bodies = BodyEncoder()
        self._api_key_env = api_key_env
        self._session: aiohttp.ClientSession | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        #: What each endpoint reported serving (by base URL); None until start().
        self._served: dict[str, dict[str, Any]] | None = None
        self.requests_sent = 0

    # -- the wire format: what a provider implements ------------------------------------------------------

    @abstractmethod
    def endpoint_url(self, base: str) -> str:
        """The URL requests are POSTed to, for one base URL."""

    @abstractmethod
    def auth_headers(self, key: str) -> dict[str, str]:
        """The headers that carry the API key."""

    def protocol_headers(self) -> dict[str, str]:
        """Headers every request needs besides auth (e.g. an API version)."""
        return {}

    @abstractmethod
    def build_body(self, request: Request) -> dict[str, Any]:
        """The JSON body for one request (before `extra_body` is merged in)."""

    @abstractmethod
    def parse_reply(self, data: Any) -> Reply:
        """Text and usage from a decoded 2xx body; raises ReplyError if it holds no answer."""

    def model_card_url(self, base: str) -> str | None:
        """Where the endpoint describes the model it serves (None: nowhere)."""
        return None

    def served_card(self, data: Any) -> Any:
        """The model card for `self.model` in what `model_card_url` returned."""
        return _identity.find_card(data, self.model)

    def wire_identity(self) -> dict[str, Any]:
        """Protocol choices that can change answers (e.g. an API version), for the fingerprint."""
        return {}

    # -- construction --------------------------------------------------------------------------------------

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        """`NAME:MODEL@URL|URL|...`; without `@URL`, the API's own (`default_base_url`) where it has one."""
        return endpoint_spec(name, rest, cls.default_base_url)

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> HTTPBackend:
        urls, model = spec_endpoints(spec, cls.provider, cls.default_base_url)
        request = RequestOptions.parse(spec.options.get("request"))
        return cls(urls, model, api_key_env=spec.api_key_env, settings=settings, request=request)

    def warm_up(self) -> None:
        """Import the HTTP client library (aiohttp, about 0.1 s) in the background while the data is read: an
        endpoint has no weights to load, but its first request would wait for that import."""
        threading.Thread(target=_import_client, name="mmgauge-import-aiohttp", daemon=True).start()

    # -- identity --------------------------------------------------------------------------------------------

    async def start(self) -> None:
        """Ask every endpoint what it serves (GET its model card), once; the fingerprint includes it."""
        if self._served is None:
            found = await _identity.ask_all(
                [self.model_card_url(base) for base in self.base_urls], headers=self._headers(),
                timeout_s=min(self.settings.timeout_s, CONNECT_TIMEOUT_S), model=self.model,
                pick=self.served_card, limit=self.settings.max_response_bytes, redact=self._redact,
            )
            self._served = dict(zip(self.base_urls, found, strict=True))

    def notices(self) -> list[str]:
        served = {self._redact(url): found for url, found in (self._served or {}).items()}
        return _identity.unlisted_notice(served, self.model)

    def identity(self) -> dict[str, Any]:
        """Everything the fingerprint is made of (no secrets)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "endpoints": sorted(self._public_urls()),
            "served": _identity.distinct_served(self._served or {}),
            "request": self.options.public(),
            "cache_namespace": self.settings.cache_namespace,
            **self.wire_identity(),
        }

    def fingerprint(self) -> str:
        return _identity.fingerprint(self.provider, self.model, self.identity())

    def _public_urls(self) -> list[str]:
        return [self._redact(url) for url in self.base_urls]

    def describe(self) -> dict[str, Any]:
        urls = self._public_urls()
        served = None if self._served is None else {self._redact(k): v for k, v in self._served.items()}
        info: dict[str, Any] = {
            "fingerprint": self.fingerprint(),
            "base_url": urls[0],
            "model": self.model,
            "api_key_env": self._api_key_env,
            "concurrency": self.concurrency,
            "served": "not asked (start() was not awaited)" if served is None else served,
        }
        if len(urls) > 1:
            info.update(base_urls=urls, concurrency_per_endpoint=self.ceiling)
        if self.options.given():
            info["request"] = self.options.public()
        if not self.options.sampling:
            # Shown wherever the run's numbers are (`runner.caveats`): the sampling flags did not apply.
            info["caveat"] = ("no temperature or top_p was sent (request.sampling: false): the model "
                              "answered with its own sampling defaults, whatever --temperature says")
            info["caveat_label"] = "own sampling"
        if self.settings.cache_namespace is not None:
            info["cache_namespace"] = self.settings.cache_namespace
        info.update(self.wire_identity())
        if self.notices():
            info["notices"] = self.notices()
        return info

    # -- state for the progress display ------------------------------------------------------------------

    def live_concurrency(self) -> int | None:
        return self.pool.live_concurrency()

    def failed_attempts(self) -> int | None:
        return sum(endpoint.failed for endpoint in self.pool.endpoints)

    def endpoint_stats(self) -> list[EndpointStats]:
        """Per endpoint: current limit, requests in flight, answered and failed attempts, open or why not."""
        return self.pool.snapshot()

    # -- sending ---------------------------------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept-Encoding": ACCEPT_ENCODING}
        set_headers(headers, self.protocol_headers())
        found: list[str] = []
        if self._api_key_env:
            key = os.environ.get(self._api_key_env)
            if not key:
                raise UserError(
                    f"environment variable {self._api_key_env} (the API key) is not set",
                    field="--api-key-env",
                )
            auth = self.auth_headers(key)
            set_headers(headers, auth)
            found += [key, *auth.values()]
        set_headers(headers, self.options.headers)  # the user's headers win, e.g. another API version
        found += self.options.secrets()
        for secret in found:
            secrets.remember(secret)
        self._secrets = [*self._url_secrets, *found]
        return headers

    def _redact(self, text: str) -> str:
        return secrets.redact(text, self._secrets) if self._secrets else text

    def _session_now(self) -> aiohttp.ClientSession:
        import aiohttp

        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._session_loop is not loop:
            # One connection per request in flight; aiohttp's pool stays cheap at high concurrency.
            connector = aiohttp.TCPConnector(limit=self.concurrency, limit_per_host=self.ceiling)
            timeout = self.settings.timeout_s
            self._session = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=timeout, sock_connect=min(timeout, CONNECT_TIMEOUT_S)),
                connector=connector,
                headers=self._headers(),
                # read_body() decompresses with a size limit; aiohttp would inflate without one.
                auto_decompress=False,
            )
            self._session_loop = loop
        return self._session

    def blob(self, data: bytes) -> str:
        """A placeholder for `data` (JSON-safe ASCII such as base64) that `encode()` splices into the
        serialised body, for use inside `build_body` (see `_bodies`)."""
        return self._bodies.blob(data)

    def encode(self, request: Request) -> Body:
        """The request body, serialised once (retries resend the same pieces; `bytes(body)` joins them)."""
        try:
            body = self.build_body(request)
        except BaseException:
            self._bodies.discard()
            raise
        body.update(self.options.extra_body)
        return self._bodies.encode(body)

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        return [await self._one(request) for request in batch]

    async def _one(self, request: Request) -> ModelResponse:
        session = self._session_now()
        body = self.encode(request)
        started = time.perf_counter()
        tried: set[Endpoint] = set()
        attempt = 0
        previous: Attempt | None = None
        while True:
            endpoint = await self.pool.acquire(frozenset(tried))
            sent_at = time.monotonic()
            try:
                reply = await self._post(session, endpoint.url, body)
            except Attempt as error:
                failure = same_reply_again(error, previous, self.overload_status)
                self.pool.failed(
                    endpoint, error.kind, sent_at=sent_at, retry_after=error.delay, reason=str(error),
                    replied=error.replied,
                )
            else:
                self.pool.succeeded(endpoint)
                # Validated like any model: pydantic-core takes the values made here as they are, in less time
                # than model_construct (a Python loop over the fields, deep-copying each default left out).
                text = None if reply.text is None else self._redact(reply.text)
                return ModelResponse(text=text, usage=reply.usage, truncated=reply.truncated,
                                     latency_s=time.perf_counter() - started)
            finally:
                self.pool.release(endpoint)
            self.pool.raise_if_dead()
            tried.add(endpoint)
            dead = failure.kind == "connect" and self.pool.live_besides(endpoint)
            if endpoint.disabled is not None or dead:
                # A misconfigured or dead endpoint says nothing about this request: it goes to the others at
                # no cost to its retries, and fails only when no live endpoint could answer it.
                continue
            if not failure.retry or attempt >= self.settings.max_retries:
                break
            previous = failure
            await self._wait_before_retry(failure, attempt, frozenset(tried))
            attempt += 1
        if failure.kind == "connect" and not self.pool.ever_reached():
            urls = ", ".join(e.label for e in self.pool.endpoints)
            raise EndpointError(f"cannot reach {urls}: {failure}")
        return ModelResponse(error=str(failure), error_code=failure.code, error_permanent=not failure.retry,
                             latency_s=time.perf_counter() - started)

    async def _wait_before_retry(self, failure: Attempt, attempt: int, tried: frozenset[Endpoint]) -> None:
        if self.pool.has_alternative(tried) or failure.kind == "connect":
            # Another endpoint is open: go there now. Or the endpoint is down: its cooldown spaces the probes,
            # and waiting in the pool's line (not asleep here) lets the give-up deadline reach this request.
            return
        if failure.delay is not None:
            # The server said when; never longer than backoff_max_s (the endpoint itself pauses less).
            await asyncio.sleep(min(failure.delay, self.settings.backoff_max_s))
            return
        ceiling = min(self.settings.backoff_max_s, self.settings.backoff_base_s * 2 ** min(attempt, 30))
        await asyncio.sleep(random.uniform(0, ceiling))

    async def _post(self, session: aiohttp.ClientSession, url: str, body: Body) -> Reply:
        self.requests_sent += 1
        status, retry_after, raw, fallback = await post(
            session, url, body, max_bytes=self.settings.max_response_bytes, timeout_s=self.settings.timeout_s,
            redact=self._redact)
        if not 200 <= status < 300:
            message, code = error_reply(status, raw)
            refused = self.refused_setting(message) if status == 400 else None
            if refused is not None:
                # Every request would be refused the same way: the run stops at once with the way out.
                what, fix = refused
                raise EndpointError(
                    f"{self.model} refuses {what} mmgauge sends ({self._redact(message)}): {fix}")
            retry = status in self.retry_status
            raise Attempt(self._redact(message), retry=retry, kind=self._status_kind(status, message),
                          status=status, delay=retry_after_seconds(retry_after) if retry else None,
                          replied=True, code=self._redact(code), body=raw)
        try:
            reply = self.parse_reply(json.loads(raw))
        except ValueError:
            raise ReplyError(f"not JSON: {snippet(raw, 120)}").attempt(self._redact) from None
        except ReplyError as error:
            raise error.attempt(self._redact) from None
        if fallback:
            # A gateway answered with another model of its fallback list after this one failed: scored, it
            # would mix that model's answers into this model's numbers. The model may answer on a later try.
            raise Attempt(f"answered by a fallback model, not {self.model} (the gateway's "
                          "x-litellm-attempted-fallbacks)", retry=True, replied=True, code="fallback answer")
        if not reply.text and not self.settings.accept_empty:
            what = "null" if reply.text is None else "empty"
            raise Attempt(f"the answer is {what} (set accept_empty to count it as an answer)", retry=True,
                          replied=True, code=f"{what} answer")
        if reply.text is None:
            reply.text = ""
        return reply

    def refused_setting(self, message: str) -> tuple[str, str] | None:
        """(what, the model-config change to make) when a 400 refuses a parameter that every request carries,
        so that no request can succeed as configured; None for a refusal of that request alone."""
        if self.options.sampling and refuses_sampling(message):
            return ("the sampling parameters", "add `request: {sampling: false}` to a model config to send "
                    "none (the model then samples with its own defaults, and the run says so)")
        return None

    def _status_kind(self, status: int, message: str) -> Failure:
        # A gateway that does not serve the model answers 400 (LiteLLM: "Invalid model name passed in
        # model=..."), not 404: it refuses every request alike, so it stops a run that got no answer yet.
        if status in self.fatal_status or (status == 400 and "invalid model name" in message.lower()):
            return "fatal"
        return "overload" if status in self.overload_status else "other"

    async def aclose(self) -> None:
        session, loop = self._session, self._session_loop
        self._session = self._session_loop = None
        # A session opened in an event loop that has since ended cannot be closed from this one.
        if session is not None and not session.closed and loop is asyncio.get_running_loop():
            await session.close()


def _import_client() -> None:
    try:
        import aiohttp  # noqa: F401 - imported for its side effect: the module is loaded for the first request
    except BaseException:  # missing, or the interpreter is exiting: the first request says what is wrong
        return
