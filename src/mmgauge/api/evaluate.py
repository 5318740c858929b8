"""`evaluate()`: run benchmarks on a model into a run folder and return its `RunResults`.

The command line's `mmgauge run` parses its flags into an `EvalRequest` and calls `evaluate_async` with it;
a notebook calls `evaluate(...)` with the same arguments as keywords. `evaluate` works whether or not an event
loop is already running in the caller's thread (Jupyter runs one): it then runs in a worker thread.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mmgauge.api.request import EvalRequest, build_request
from mmgauge.core.sync import run_sync
from mmgauge.runner.progress import ProgressSink
from mmgauge.store.results import RunResults


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
    return await session.run()
