"""A backend that answers instantly with a fixed text: smoke tests and toolkit-overhead benchmarks."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.core.types import ModelResponse, ModelSpec, Usage


class MockBackend(Backend):
    def __init__(self, text: str = "yes", batch_size: int = 256) -> None:
        self.text = text
        self.batch_size = batch_size
        self.requests = 0

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        return ModelSpec(backend=name, model=rest or "yes")  # `mock:TEXT`: the answer

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> MockBackend:
        return cls(spec.model or "yes", batch_size=settings.batch_size or 256)

    def fingerprint(self) -> str:
        return "mock:" + hashlib.sha256(self.text.encode()).hexdigest()[:16]

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        self.requests += len(batch)
        return [
            ModelResponse(text=self.text, usage=Usage(prompt_tokens=0, completion_tokens=1)) for _ in batch
        ]
