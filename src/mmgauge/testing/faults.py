"""What the test server does with one request, and a seeded schedule of faults over many requests."""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: Every kind of reply the test server can give (besides "ok"):
#:   429 / 500 / 503 / 529 (Anthropic's "overloaded") / 401 (its body echoes the key that was sent);
#:   malformed (truncated JSON), hang (never answers), close (drops the connection);
#:   empty_choices (no choice / no content block), null_content (content null), bad_usage (answer kept,
#:   usage not numbers), gzip_bomb (a small gzip body that inflates past any sane cap), big (a chunked body
#:   of `big_bytes` without Content-Length).
#: A "500" is transient: its body carries a request id, as a proxy's does, so no two are alike. The
#: behaviours of real servers besides:
#:   500_same: llama-cpp-python's answer to any exception in a request (e.g. image parts sent to a text-only
#:   chat template, which fails to join a list to a string), instant and the same body every time;
#:   context_length: OpenAI's 400 for a prompt too long, a JSON error whose `code` lies past 200 characters;
#:   length: an answer cut at the token limit (finish_reason "length"; Anthropic stop_reason "max_tokens").
#: And "body": `Action.body` as it is, with `Action.status`.
FAULT_KINDS = (
    "429", "500", "503", "529", "401", "malformed", "hang", "close", "empty_choices", "null_content",
    "bad_usage", "gzip_bomb", "big", "500_same", "context_length", "length",
)  # fmt: skip

#: The body llama-cpp-python's server (0.3.36) sends with its 500 when a request with image parts reaches a
#: text-only GGUF chat template such as SmolLM2's, as the real server sent it.
LLAMA_CPP_500 = {"error": {
    "message": 'can only concatenate str (not "list") to str',
    "type": "internal_server_error", "param": None, "code": None,
}}
#: OpenAI's error for a prompt longer than the model's context window.
CONTEXT_LENGTH_400 = {"error": {
    "message": "This model's maximum context length is 4096 tokens. However, you requested 4608 tokens (4096 "
               "in the messages, 512 in the completion). Please reduce the length of the messages or "
               "completion.",
    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
}}

#: LiteLLM's proxy (1.108.7), as it relays an upstream's failures: the upstream's own message behind its
#: exception names and its notes on the model group, its own code the status as a string. The upstream
#: dropped the connection:
LITELLM_CONNECTION_500 = {"error": {
    "message": "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.\n\n"
               "LiteLLM: model group 'gw-model' failed with the error above and no fallback model group was "
               "found for it, so the request was not retried on another model.",
    "type": "internal_server_error", "param": None, "code": "500",
}}
#: The upstream's context-length 400 (`CONTEXT_LENGTH_400`), its code replaced:
LITELLM_CONTEXT_400 = {"error": {
    "message": "litellm.ContextWindowExceededError: litellm.BadRequestError: ContextWindowExceededError: "
               "OpenAIException - " + CONTEXT_LENGTH_400["error"]["message"] + "\nmodel=gw-model. "
               "context_window_fallbacks=None. fallbacks=None.\n\nSet 'context_window_fallback' - "
               "https://docs.litellm.ai/docs/routing#fallbacks",
    "type": "invalid_request_error", "param": None, "code": "400",
}}
#: A model name the proxy does not route (a 400, not a 404):
LITELLM_UNKNOWN_MODEL_400 = {"error": {
    "message": "/chat/completions: Invalid model name passed in model=gw-nosuch. Call `/v1/models` to view "
               "available models for your key.",
    "type": "invalid_request_error", "param": None, "code": "400",
}}


@dataclass(frozen=True)
class Action:
    kind: str  # "ok", "body" or one of FAULT_KINDS
    delay_s: float = 0.0
    retry_after: str | None = None
    #: For "body": the JSON the server answers with, as it is (a provider's reply built with its SDK's types),
    #: and its HTTP status.
    body: Any = None
    status: int = 200
    #: For "body": headers sent with it.
    headers: tuple[tuple[str, str], ...] = ()


OK = Action("ok")


@dataclass
class FaultSchedule:
    """Each request draws one fault (or none) with the given probabilities, from a seeded generator.

    The draws are a fixed sequence for a seed, taken in the order requests arrive. `skip_first` requests
    are never faulted (so an endpoint has answered once before any 401, which would otherwise read as
    "wrong credentials" and disable it). `counts` says how many of each fault were served.
    """

    probabilities: dict[str, float]
    seed: int = 0
    skip_first: int = 0
    #: Retry-After sent with scheduled 429/503/529 replies (None: no header).
    retry_after: str | None = "0"
    counts: Counter[str] = field(default_factory=Counter)
    drawn: int = 0

    def __post_init__(self) -> None:
        unknown = sorted(set(self.probabilities) - set(FAULT_KINDS))
        if unknown:
            raise ValueError(f"unknown fault kind(s): {', '.join(unknown)}")
        if sum(self.probabilities.values()) > 1.0 + 1e-9 or min(self.probabilities.values(), default=0) < 0:
            raise ValueError("fault probabilities must be >= 0 and add up to at most 1")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def next(self) -> Action | None:
        """The fault for the next request, or None for a normal answer."""
        with self._lock:
            self.drawn += 1
            draw = self._rng.random()
            if self.drawn <= self.skip_first:
                return None
            total = 0.0
            for kind, probability in self.probabilities.items():
                total += probability
                if draw < total:
                    self.counts[kind] += 1
                    retry_after = self.retry_after if kind in ("429", "503", "529") else None
                    return Action(kind, retry_after=retry_after)
            self.counts["ok"] += 1
            return None
