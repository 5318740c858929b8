"""The LLM judge: any backend, asked to map a free-form answer to one choice when rules cannot."""

from __future__ import annotations

from collections.abc import Callable

from mmgauge.backends.base import Backend, Request
from mmgauge.core.types import GenerationConfig, Message
from mmgauge.store.cache import ResponseCache, config_part, request_fingerprint


class JudgeUnavailable(Exception):
    """The judge backend failed for a request (after its own retries); `permanent`: the backend says asking
    again gets the same (a refusal of this prompt, not an outage)."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


class Judge:
    """Asks a backend one text question at a time, through the response cache, counting real calls."""

    def __init__(self, backend: Backend, cache: ResponseCache | None = None, max_tokens: int = 32) -> None:
        self.backend = backend
        self.cache = cache
        self.config = GenerationConfig(temperature=0.0, max_tokens=max_tokens, seed=0)
        self._config_part = config_part(self.config)
        self.calls = 0
        self.cache_hits = 0
        #: Called after every question (True when the cache answered it), e.g. to advance a progress bar.
        self.on_call: Callable[[bool], None] | None = None

    async def ask(self, prompt: str) -> str:
        messages = [Message.user(prompt)]
        key = request_fingerprint(self.backend.fingerprint(), self._config_part, messages)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None and hit.text is not None:
                self.cache_hits += 1
                if self.on_call is not None:
                    self.on_call(True)
                return hit.text
        self.calls += 1
        (response,) = await self.backend.generate([Request(messages=messages, config=self.config)])
        if self.on_call is not None:
            self.on_call(False)
        if response.error is not None or response.text is None:
            raise JudgeUnavailable(response.error or "empty judge reply", permanent=response.error_permanent)
        if self.cache is not None:
            # Committed now, not with the next batch: a stopped judge pass is resumed from the cache, and a
            # verdict left in the buffer would be paid for again. Under the judge model's name, as a run's
            # answers are (`cache stats`, `cache clear`).
            self.cache.put_now(key, response, self.backend.fingerprint())
        return response.text
