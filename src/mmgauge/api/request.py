"""`EvalRequest`: every setting of one evaluation, typed; built from `evaluate()`'s keywords, CLI flags or a
run configuration file (`RunConfig`: the same fields, less the command that asked)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mmgauge.core.errors import UserError


class RunConfig(BaseModel):
    """A run configuration for `mmgauge run --config FILE`: every setting of one evaluation (all optional)."""

    # The field docstrings are the descriptions in the published JSON Schema (`mmgauge schema run-config`).
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, use_attribute_docstrings=True)

    # Any: the Python API also takes a Backend object; a file gives a spec string (the schema says so).
    model: Any = Field(default="embedded", json_schema_extra={"type": "string"})
    """Model spec (embedded, openai:MODEL@URL, hf:PATH, vllm:PATH, replay:FILE, mock[:TEXT], NAME:...) or a
    .yaml/.json model config file."""
    benchmarks: list[str] | None = None
    """Benchmark names; default every benchmark, on its built-in sample data."""
    data: dict[str, str] = Field(default_factory=dict)
    """Benchmark data by benchmark: a path, a VLMEvalKit name, or hf:ORG/NAME[@REV][/CONFIG[/SPLIT]]."""
    out: Path = Path("runs/latest")
    """Run folder; an existing one is resumed."""
    judge: str | None = None
    """Judge model spec for unresolved answers, or 'none' (default: the run folder's judge)."""
    limit: int | None = Field(default=None, ge=1)
    """Only the first N samples per benchmark."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Benchmark options, shared ({"parser": "words"}) or per benchmark ({"mme": {"parser": "words"}})."""
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=512, gt=0)
    seed: int = 0
    system_prompt: str | None = None
    concurrency: int | None = Field(default=None, ge=1)
    """Requests in flight per endpoint."""
    batch_size: int | None = Field(default=None, ge=1)
    """Batch size (hf, embedded, vllm)."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds per HTTP request."""
    max_retries: int | None = Field(default=None, ge=0)
    api_key_env: str | None = None
    """Name of the environment variable holding the API key (the key itself is never stored)."""
    judge_api_key_env: str | None = None
    """Environment variable holding the judge's API key."""
    accept_empty: bool = False
    """Score empty answers (default: an empty answer is a failed request)."""
    keep_reasoning: bool = False
    """Read answers with the model's <think>...</think> reasoning left in."""
    cache_namespace: str | None = None
    """Part of every cache key: change it when the model changed in a way the endpoint does not report."""
    cache: bool = True
    """Read and write the response cache."""
    cache_path: Path | None = None
    """Response cache file."""
    force_cache: bool = False
    """Cache even sampled (temperature > 0) responses."""
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    ray_workers: int | None = Field(default=None, ge=1)
    ray_gpus_per_worker: float | None = Field(default=None, ge=0.0)
    ray_inline_images: bool = False


class EvalRequest(RunConfig):
    """Everything `evaluate` takes, typed; see `evaluate` for what each field means."""

    #: The command that asked for this run, recorded in the manifest (the CLI sets the exact argv).
    command: list[str] = Field(default_factory=list)


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
