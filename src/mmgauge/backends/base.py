"""The backend interface: messages in, text out. A backend knows nothing about benchmarks."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from mmgauge.core.types import GenerationConfig, Message, ModelResponse, ModelSpec


class BackendSettings(BaseModel):
    """Run-time settings a user gives on the command line or in a model config file."""

    concurrency: int = Field(default=16, ge=1)
    #: None: the backend's own default (1 for endpoints, larger for local models).
    batch_size: int | None = Field(default=None, ge=1)
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)


class Request(BaseModel):
    """One generation request as a backend sees it."""

    messages: list[Message]
    config: GenerationConfig
    #: The sample this request belongs to. Only `replay` uses it (to look answers up); others ignore it.
    sample_id: str | None = None


class Backend(ABC):
    """Base class of every model backend.

    `generate` takes a batch (at most `batch_size` requests) and returns one response per request, in order.
    It must not raise for a failed request: it returns a `ModelResponse` with `error` set instead, so the
    runner can record the failure and retry it in a later run. It may raise `EndpointError` when the model
    cannot be reached at all, which stops the run with everything finished so far kept.
    """

    #: How many batches the runner keeps in flight at once.
    concurrency: int = 1
    #: How many requests go into one `generate` call.
    batch_size: int = 1
    #: Whether answers may go to the response cache (a replay file is its own cache).
    cacheable: bool = True

    @classmethod
    @abstractmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> Backend:
        """Build the backend from a parsed model spec."""

    @abstractmethod
    def fingerprint(self) -> str:
        """A stable identity of the model (weights, endpoint model name); part of every cache key."""

    @abstractmethod
    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        """Answer a batch of requests."""

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Get ready before the first request (e.g. ask an endpoint which model it serves).

        Called once before `fingerprint()` is read for a run, so a backend can make its fingerprint say
        exactly which model answers.
        """

    def describe(self) -> dict[str, Any]:
        """What the run manifest records about this backend (never secrets)."""
        return {"fingerprint": self.fingerprint()}

    def live_concurrency(self) -> int | None:
        """The concurrency in force now, for backends that adapt it; None where it is fixed."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Release connections, processes or models."""
