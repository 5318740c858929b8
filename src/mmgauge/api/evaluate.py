"""`evaluate()`: run benchmarks on a model into a run folder and return its `RunResults`.

The command line's `mmgauge run` parses its flags into an `EvalRequest` and calls `evaluate_async` with it;
a notebook calls `evaluate(...)` with the same arguments as keywords. `evaluate` works whether or not an event
loop is already running in the caller's thread (Jupyter runs one): it then runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mmgauge.core.errors import UserError
from mmgauge.runner.progress import ProgressSink
from mmgauge.store.results import RunResults


class EvalRequest(BaseModel):
    """Everything `evaluate` takes, typed; see `evaluate` for what each field means."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    model: Any = "embedded"
    benchmarks: list[str] | None = None
    data: dict[str, str] = Field(default_factory=dict)
    out: Path = Path("runs/latest")
    judge: str | None = None
    limit: int | None = Field(default=None, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=512, gt=0)
    seed: int = 0
    system_prompt: str | None = None
    concurrency: int | None = Field(default=None, ge=1)
    batch_size: int | None = Field(default=None, ge=1)
    timeout: float | None = Field(default=None, gt=0)
    max_retries: int | None = Field(default=None, ge=0)
    api_key_env: str | None = None
    judge_api_key_env: str | None = None
    cache: bool = True
    cache_path: Path | None = None
    force_cache: bool = False
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    ray_workers: int | None = Field(default=None, ge=1)
    ray_gpus_per_worker: float | None = Field(default=None, ge=0.0)
    ray_inline_images: bool = False
    #: The command that asked for this run, recorded in the manifest (the CLI sets the exact argv).
    command: list[str] = Field(default_factory=list)


def evaluate(
    model: Any = "embedded",
    benchmarks: str | Sequence[str] | None = None,
    data: str | Path | Mapping[str, str | Path] | None = None,
    out: str | Path = "runs/latest",
    *,
    judge: str | None = None,
    limit: int | None = None,
    options: Mapping[str, Any] | None = None,
    progress: ProgressSink | None = None,
    **settings: Any,
) -> RunResults:
    """Evaluate `model` on `benchmarks` into the run folder `out`, and return its results.

    - `model`: a model spec (`"embedded"`, `"openai:MODEL@URL"`, `"hf:PATH"`, `"vllm:PATH"`, `"replay:FILE"`,
      `"mock:TEXT"`, a plug-in's `NAME:...`, a `.yaml`/`.json` model config) or a `Backend` instance.
    - `benchmarks`: names (default: every built-in benchmark, on its built-in sample data).
    - `data`: one path (with one benchmark) or `{benchmark: path}`; default the built-in sample.
    - `out`: the run folder; running into an existing one resumes it and never loses its results.
    - `judge`: a judge model spec, `"none"`, or None (the folder's judge if it had one, else none).
    - `limit`: only the first N samples per benchmark (the results are then marked partial).
    - `options`: benchmark options, shared (`{"parser": "words"}`) or per benchmark (`{"mme": {...}}`).
    - `settings`: `temperature`, `max_tokens`, `seed`, `system_prompt`, `concurrency`, `batch_size`,
      `timeout`, `max_retries`, `api_key_env`, `judge_api_key_env`, `cache`, `cache_path`, `force_cache`,
      `executor` (`"local"`/`"ray"`), `ray_address`, `ray_workers`, `ray_gpus_per_worker`.
    """
    request = build_request(model, benchmarks, data, out, judge=judge, limit=limit, options=options,
                            **settings)
    results: RunResults = run_sync(evaluate_async(request, progress=progress))
    return results


def build_request(
    model: Any,
    benchmarks: str | Sequence[str] | None,
    data: str | Path | Mapping[str, str | Path] | None,
    out: str | Path,
    **fields: Any,
) -> EvalRequest:
    names = [benchmarks] if isinstance(benchmarks, str) else list(benchmarks) if benchmarks else None
    if names is not None:
        names = [n.strip().lower() for name in names for n in name.split(",") if n.strip()]
    if data is None:
        paths: dict[str, str] = {}
    elif isinstance(data, Mapping):
        paths = {str(name).lower(): str(path) for name, path in data.items()}
    elif names is not None and len(names) == 1:
        paths = {names[0]: str(data)}
    else:
        raise UserError("with several benchmarks give data as {benchmark: path}", field="data")
    clean = {key: value for key, value in fields.items() if value is not None}
    clean["options"] = dict(clean.get("options") or {})
    try:
        return EvalRequest(model=model, benchmarks=names, data=paths, out=Path(out), **clean)
    except ValueError as error:
        raise UserError(" ".join(str(error).split()[:40])) from None


def run_sync(coro: Any) -> Any:
    """Run a coroutine to completion from synchronous code, also where a loop already runs (Jupyter)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    outcome: dict[str, Any] = {}

    def worker() -> None:
        try:
            outcome["value"] = asyncio.run(coro)
        except BaseException as error:  # handed to the caller's thread below
            outcome["error"] = error

    thread = threading.Thread(target=worker, name="mmgauge-evaluate")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


async def evaluate_async(request: EvalRequest | None = None, *, progress: ProgressSink | None = None,
                         **kwargs: Any) -> RunResults:
    """`evaluate` for callers inside a running event loop: `await evaluate_async(model=..., ...)`."""
    from mmgauge.api.session import EvalSession

    if request is None:
        request = build_request(kwargs.pop("model", "embedded"), kwargs.pop("benchmarks", None),
                                kwargs.pop("data", None), kwargs.pop("out", "runs/latest"), **kwargs)
    elif kwargs:
        raise TypeError("give either an EvalRequest or keyword arguments, not both")
    if not request.command:
        request = request.model_copy(update={"command": ["python", *sys.argv[:1]]})
    session = EvalSession(request, progress)
    results = await session.run()
    write_judge_audit(request.out, request.command)
    return results


def write_judge_audit(out: Path, command: list[str]) -> None:
    """Store what the judge decided in the run (`judge_audit.json`), computed from its final records.

    Done under the folder's lock, right after the run released it; a command that took the folder in
    between will write its own audit when it finishes, so this one is then skipped.
    """
    from mmgauge.comparison.audit import audit_folder
    from mmgauge.store.lock import FolderBusy
    from mmgauge.store.manifest import now
    from mmgauge.store.run_folder import RunFolder

    folder = RunFolder(out)
    try:
        with folder.lock(command, now()):
            folder.write_judge_audit(audit_folder(folder))
    except FolderBusy:
        return
