"""`EvalRequest`: every setting of one evaluation, typed; built from `evaluate()`'s keywords or CLI flags."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mmgauge.core.errors import UserError


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
    accept_empty: bool = False
    keep_reasoning: bool = False
    cache_namespace: str | None = None
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
