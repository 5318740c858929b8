"""The backend interface: messages in, text out. A backend knows nothing about benchmarks."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from mmgauge.core.errors import UserError
from mmgauge.core.types import (
    AnswerChoice,
    GenerationConfig,
    GenerationStats,
    Message,
    ModelResponse,
    ModelSpec,
)


class BackendSettings(BaseModel):
    """Run-time settings a user gives on the command line or in a model config file.

    Unknown names are rejected (a misspelled setting must not be silently ignored).
    """

    model_config = ConfigDict(extra="forbid")

    concurrency: int = Field(default=16, ge=1)
    #: None: the backend's own default (1 for endpoints, larger for local models).
    batch_size: int | None = Field(default=None, ge=1)
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=5, ge=0)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=60.0, ge=0)
    #: HTTP backends: a reply body larger than this (after decompression) is a failed request.
    max_response_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    #: HTTP backends: whether an empty or null answer counts as an answer (default: a failed request).
    accept_empty: bool = False
    #: HTTP backends: once every endpoint has been unreachable this long (after something answered), the
    #: run stops with EndpointError. Before anything answered, it stops as soon as none can be reached.
    unreachable_timeout_s: float = Field(default=45.0, gt=0)
    #: HTTP backends: part of the model fingerprint (so of every cache key). Names what an endpoint cannot
    #: show, e.g. a new checkpoint served under the old name and path.
    cache_namespace: str | None = None
    #: `replay:`: the benchmarks' own answer files it also reads, as their `answer_files` hooks name them
    #: ("module:attribute"); a run gives those of the benchmarks it runs.
    answer_files: tuple[str, ...] = ()


class Request(BaseModel):
    """One generation request as a backend sees it."""

    messages: list[Message]
    config: GenerationConfig
    #: The sample this request belongs to. Only `replay` uses it (to look answers up); others ignore it.
    sample_id: str | None = None
    #: The answers the question allows (None: any text). Given only to a backend that declares
    #: `answers_from_choices`, so every other backend's requests and cache keys stay as they were.
    choices: list[AnswerChoice] | None = None

    def image_count(self) -> int:
        return sum(len(message.images()) for message in self.messages)


@dataclass(frozen=True)
class Stage:
    """A step a backend takes on its way to answering that is long enough to show (a one-time conversion of
    weights, loading them, the first batch): reported once as it begins and once as it ends, and in between,
    where the backend can count its way through it, as often as it likes with `done` of `total` set."""

    name: str
    ended: bool = False
    #: How far the stage has come (tensors converted, say), on events between its beginning and its end.
    done: int | None = None
    total: int | None = None

    @property
    def progress(self) -> bool:
        """Whether this event says how far a stage under way has come (rather than that it began or ended)."""
        return self.done is not None and not self.ended


#: Told of each `Stage`; it may be called from a worker thread (a local model answers in one).
StageListener = Callable[[Stage], None]


@contextmanager
def stage(listener: StageListener | None, name: str) -> Iterator[None]:
    """Report the block as the stage `name` to `listener` (nothing when there is none)."""
    if listener is None:
        yield
        return
    listener(Stage(name))
    try:
        yield
    finally:
        listener(Stage(name, ended=True))


def stage_progress(listener: StageListener | None, name: str, done: int, total: int) -> None:
    """Tell `listener` (if any) that the stage `name`, under way, has done `done` of `total` steps."""
    if listener is not None:
        listener(Stage(name, done=done, total=total))


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
    #: Whether `generate` answers from `Request.choices` where a request has them; such a backend gets them,
    #: and they become part of its cache keys.
    answers_from_choices: bool = False
    #: Told of the stages of getting ready that take long (see `Stage`), by whoever shows the run's progress.
    #: The backend itself never draws anything.
    stage_listener: StageListener | None = None

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        """The spec `NAME:REST` (`rest`: what follows the colon). Each backend reads its own; by default REST
        is a model with a trailing `@http(s)://...` URL, or else a model id or path."""
        model, at, url = rest.rpartition("@")
        if at and model and url.startswith(("http://", "https://")):
            return ModelSpec(backend=name, model=model, base_url=url)
        if not rest:
            raise UserError(f"'{name}:' needs a model: {name}:MODEL@URL or {name}:PATH", field="--model")
        return ModelSpec(backend=name, model=rest, path=rest)

    @classmethod
    def path_spec(cls, name: str, rest: str, form: str = "PATH") -> ModelSpec:
        """`NAME:PATH` for a backend that reads a path (or a model id) only; `form` names it in the error."""
        if not rest:
            raise UserError(f"'{name}:{rest}' needs a path: {name}:{form}", field="--model")
        return ModelSpec(backend=name, path=rest)

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

    async def start(self) -> None:  # noqa: B027 - optional hook, most backends know their identity already
        """Learn what the fingerprint needs from the model's server (e.g. what an endpoint says it serves).

        The runner awaits this once, before it first asks for `fingerprint()`. It must not fail for an
        unreachable server: requests report that.
        """

    def check_generation(self, config: GenerationConfig) -> None:  # noqa: B027 - optional hook
        """Refuse (UserError) a decoding setting this backend cannot honour; called once, before the run."""

    def ray_gpus(self, requested: float | None) -> float:
        """GPUs each Ray worker running this backend reserves, given `--ray-gpus-per-worker` (None: unset).

        A backend whose model needs GPUs declares them here; it refuses (UserError) a reservation it cannot
        run on, before any worker starts.
        """
        return 0.0 if requested is None else requested

    async def load_model(self) -> None:  # noqa: B027 - optional hook, most backends load nothing up front
        """Load the model now rather than at the first batch (a Ray worker does this when it starts)."""

    def warm_up(self) -> None:  # noqa: B027 - optional hook, for backends with something slow to load
        """Begin loading the model in the background, for a backend that will generate in this process (an
        endpoint's backend loads its HTTP client library).

        The session calls this as soon as the backend exists, so that the weights load while the data is read
        and the requests planned. It must return at once; a failure to load is reported by `generate`.
        """

    def batch_order(self, requests: Sequence[Request]) -> list[int]:
        """The order (indices into `requests`) in which the runner cuts pending requests into batches.

        As given by default. A backend that pads a batch to its longest prompt puts similar prompts together.
        """
        return list(range(len(requests)))

    def generation_stats(self) -> GenerationStats | None:
        """Throughput of what this process generated so far (None where the model runs elsewhere)."""
        return None

    def describe(self) -> dict[str, Any]:
        """What the run manifest records about this backend (never secrets)."""
        return {"fingerprint": self.fingerprint()}

    def notices(self) -> list[str]:
        """Warnings learnt by `start()` that the user should read before trusting the answers (e.g. a model
        name the server does not list); shown once per run and kept in the manifest."""
        return []

    def failed_attempts(self) -> int | None:
        """Attempts that failed so far, retried or not (None where the backend does not retry)."""
        return None

    def live_concurrency(self) -> int | None:
        """The concurrency in force now, for backends that adapt it; None where it is fixed."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook, most backends hold nothing
        """Release connections, processes or models."""
