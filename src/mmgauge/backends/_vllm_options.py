"""What the `vllm` backend accepts before it starts an engine: spec options, decoding settings, refusals.

Checked against vLLM 0.33's sources: `LLM.__init__`/`EngineArgs` (option names), `SamplingParams._verify_args`
(temperature in [0, 2]; `seed=-1` silently means unseeded) and `vllm.exceptions` (a refused request raises
`VLLMValidationError`, a `VLLMClientError`, which is no longer a `ValueError`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig

_POSITIVE_INT = "a positive integer"
_MM_LIMITS = "a mapping of modality to a count, e.g. {image: 2} or {image: {count: 2}}"
#: vllm.LLM arguments a spec may set, with what each must be. Anything else is refused, not passed blindly.
ENGINE_OPTIONS: dict[str, str] = {
    "tensor_parallel_size": _POSITIVE_INT,
    "pipeline_parallel_size": _POSITIVE_INT,
    "max_model_len": _POSITIVE_INT,
    "max_num_seqs": _POSITIVE_INT,
    "max_num_batched_tokens": _POSITIVE_INT,
    "gpu_memory_utilization": "a number in (0, 1]",
    "cpu_offload_gb": "a number >= 0",
    "dtype": "a string",
    "quantization": "a string",
    "kv_cache_dtype": "a string",
    "tokenizer_mode": "a string",
    "revision": "a string",
    "distributed_executor_backend": "a string",
    "seed": "an integer",
    "trust_remote_code": "true or false",
    "enforce_eager": "true or false",
    "enable_prefix_caching": "true or false",
    "limit_mm_per_prompt": _MM_LIMITS,
    "mm_processor_kwargs": "a mapping",
}
#: Options older mmgauge releases passed on that vLLM 0.33 no longer takes: why, in one line each.
RETIRED_OPTIONS: dict[str, str] = {
    "swap_space": "swap_space was removed from vLLM (LLM() no longer takes it); leave it out",
    "data_parallel_size": "vLLM's LLM refuses data_parallel_size > 1 in one process; for data parallelism "
                          "run one engine per Ray worker: --executor ray --ray-workers N",
}
OWN_OPTIONS = {"chat_template"}
#: vLLM's SamplingParams refuses a temperature above this (`_verify_args`, 0.33).
MAX_TEMPERATURE = 2.0
#: What vLLM assumes for a modality whose limit is not given, or given without a count (0.33).
DEFAULT_MM_LIMIT = 999


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The engine keyword arguments of a spec's options, or a UserError naming the bad option."""
    for name in options:
        if name in RETIRED_OPTIONS:
            raise UserError(RETIRED_OPTIONS[name], field=f"options.{name}")
    unknown = sorted(set(options) - set(ENGINE_OPTIONS) - OWN_OPTIONS)
    if unknown:
        raise UserError(
            f"unknown vllm option(s): {', '.join(unknown)}; known: {', '.join(sorted(ENGINE_OPTIONS))}, "
            "chat_template",
            field="options",
        )
    engine: dict[str, Any] = {}
    for name, value in options.items():
        if name in OWN_OPTIONS:
            continue
        if not _valid(ENGINE_OPTIONS[name], value):
            raise UserError(f"{name} must be {ENGINE_OPTIONS[name]}, not {value!r}", field=f"options.{name}")
        engine[name] = dict(value) if isinstance(value, Mapping) else value
    return engine


def _count(value: Any) -> bool:
    # bool is an int in Python: a YAML `true` must not pass as a count of 1.
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _valid(kind: str, value: Any) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == _POSITIVE_INT:
        return _count(value) and value >= 1
    if kind == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "a number in (0, 1]":
        return number and 0 < value <= 1
    if kind == "a number >= 0":
        return number and value >= 0
    if kind == "a string":
        return isinstance(value, str) and bool(value)
    if kind == "true or false":
        return isinstance(value, bool)
    if kind == _MM_LIMITS:
        # vLLM's dict form also takes sizes for its profiling run (width, height, num_frames, ...).
        return isinstance(value, Mapping) and all(
            isinstance(k, str)
            and (_count(v) or (isinstance(v, Mapping) and all(_count(n) for n in v.values())))
            for k, v in value.items()
        )
    return isinstance(value, Mapping)


def image_limit(engine_options: Mapping[str, Any]) -> int:
    """The images vLLM takes in one prompt under these options, in either form of `limit_mm_per_prompt`."""
    limit = engine_options.get("limit_mm_per_prompt", {}).get("image", DEFAULT_MM_LIMIT)
    if isinstance(limit, Mapping):
        return int(limit.get("count", DEFAULT_MM_LIMIT))
    return int(limit)


def check_generation(config: GenerationConfig) -> None:
    """Refuse a decoding setting vLLM would refuse, or would honour differently from what mmgauge records."""
    if config.deterministic:
        return  # greedy: neither the temperature's bound nor the seed reaches vLLM
    if config.temperature > MAX_TEMPERATURE:
        raise UserError(
            f"vLLM takes a temperature of at most {MAX_TEMPERATURE:g}, not {config.temperature:g}",
            field="--temperature",
        )
    if config.seed is not None and config.seed < 0:
        # vLLM reads seed -1 as "unseeded", yet mmgauge would record (and cache) the answer as reproducible.
        raise UserError(f"the vllm backend needs a seed >= 0, not {config.seed}", field="--seed")


def check_installed(vllm: Any, engine_options: Mapping[str, Any]) -> None:
    """Refuse, naming it, an option the installed vLLM's `LLM` does not take (a TypeError at load)."""
    accepted = _accepted_names(vllm)
    if accepted is None:
        return  # nothing to introspect (a stand-in without signatures): vLLM itself will say
    version = getattr(vllm, "__version__", "?")
    for name in engine_options:
        if name not in accepted:
            raise UserError(f"the installed vLLM ({version}) takes no option {name}; leave it out",
                            field=f"options.{name}")


def _accepted_names(vllm: Any) -> set[str] | None:
    llm, engine_args = getattr(vllm, "LLM", None), getattr(vllm, "EngineArgs", None)
    if not isinstance(llm, type):
        return None
    try:
        parameters = inspect.signature(llm).parameters
    except (TypeError, ValueError):
        return None
    names = {name for name, p in parameters.items() if p.kind is not p.VAR_KEYWORD}
    takes_more = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    if takes_more:
        # LLM passes its other keyword arguments on to EngineArgs, a dataclass.
        if not (isinstance(engine_args, type) and dataclasses.is_dataclass(engine_args)):
            return None
        names |= {field.name for field in dataclasses.fields(engine_args)}
    return names


def refusal_types() -> tuple[type[BaseException], ...]:
    """What `LLM.chat` raises for a request it refuses (too long, too many images, template error).

    vLLM 0.33 raises subclasses of `vllm.exceptions.VLLMClientError`, which are no ValueError; older releases
    raised ValueError (and TypeError/KeyError from templates), which stay recognised.
    """
    found: tuple[type[BaseException], ...] = (ValueError, TypeError, KeyError)
    try:
        exceptions = importlib.import_module("vllm.exceptions")
    except ImportError:
        return found
    client = getattr(exceptions, "VLLMClientError", None)
    if isinstance(client, type) and issubclass(client, Exception):
        return (client, *found)
    return found
