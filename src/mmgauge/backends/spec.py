"""Model spec strings and model config files.

Grammar (case-sensitive backend names):

    embedded                      the offline default (OCR + small text model, bundled weights)
    openai:MODEL@BASE_URL         an OpenAI-compatible chat-completions endpoint, e.g.
                                  openai:Qwen2-VL-7B@http://localhost:8000/v1
    openai:MODEL@URL1|URL2|...    the same model served by several endpoints
    hf:PATH_OR_REPO_ID            a local transformers checkpoint folder, or a repo id in the local HF cache
    vllm:PATH_OR_REPO_ID          the same, run by vLLM's offline engine on CUDA GPUs (the `vllm` extra);
                                  engine settings (tensor_parallel_size, ...) go in a config file's options
    replay:FILE                   answers read from a predictions file (TSV, XLSX, JSONL or a run's
                                  samples.jsonl)
    mock[:TEXT]                   answers TEXT (default "yes") instantly: smoke tests, overhead benchmarks
    NAME:MODEL@URL | NAME:PATH    a backend an installed package registers (entry point `mmgauge.backends`)
    FILE.yaml | FILE.yml | FILE.json
                                  a model config file with the fields of ModelSpec (backend, model, base_url,
                                  path, api_key_env, options) and optionally a `settings` mapping
                                  (concurrency, batch_size, timeout_s, max_retries)

API keys are never part of a spec: `api_key_env` (or --api-key-env) names the environment variable to read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelSpec

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def parse_spec(text: str) -> tuple[ModelSpec, dict[str, Any]]:
    """A spec string (or config file path) -> (ModelSpec, settings overrides from a config file)."""
    text = text.strip()
    if not text:
        raise UserError("empty model spec", field="--model")
    if text.lower().endswith(CONFIG_SUFFIXES) and ":" not in text.split("/")[0].replace("\\", ""):
        return _load_config_file(Path(text))
    backend, _, rest = text.partition(":")
    if backend == "embedded":
        return ModelSpec(backend="embedded"), {}
    if backend == "mock":
        return ModelSpec(backend="mock", model=rest or "yes"), {}
    if backend == "openai":
        model, at, url = rest.rpartition("@")
        if not at or not model or not url:
            raise UserError(f"'{text}' is not of the form openai:MODEL@BASE_URL", field="--model")
        urls = [u.strip() for u in url.split("|") if u.strip()]
        for u in urls:
            if not u.startswith(("http://", "https://")):
                raise UserError(f"endpoint '{u}' must start with http:// or https://", field="--model")
        options: dict[str, Any] = {"base_urls": urls} if len(urls) > 1 else {}
        return ModelSpec(backend="openai", model=model, base_url=urls[0], options=options), {}
    if backend in ("hf", "replay"):
        if not rest:
            raise UserError(f"'{text}' needs a path: {backend}:PATH", field="--model")
        return ModelSpec(backend=backend, path=rest), {}
    if backend == "vllm":
        if not rest:
            raise UserError(f"'{text}' needs a model: vllm:PATH_OR_REPO_ID", field="--model")
        return ModelSpec(backend="vllm", path=rest), {}
    plugin = _plugin_spec(backend, rest)
    if plugin is not None:
        return plugin, {}
    raise UserError(
        f"unknown model spec '{text}'; use embedded, openai:MODEL@URL, hf:PATH, vllm:PATH, replay:FILE, "
        "mock[:TEXT], an installed plug-in's NAME:..., or a .yaml/.json model config file",
        field="--model",
    )


def _plugin_spec(backend: str, rest: str) -> ModelSpec | None:
    """`NAME:MODEL@URL` or `NAME:PATH` for a backend an installed package registers."""
    from mmgauge.backends.registry import plugin_backends

    if not rest or backend not in plugin_backends():
        return None
    model, at, url = rest.rpartition("@")
    if at and model and url.startswith(("http://", "https://")):
        return ModelSpec(backend=backend, model=model, base_url=url)
    return ModelSpec(backend=backend, model=rest, path=rest)


def _load_config_file(path: Path) -> tuple[ModelSpec, dict[str, Any]]:
    if not path.is_file():
        raise UserError("model config file not found", file=str(path))
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw) if path.suffix == ".json" else yaml.safe_load(raw)
    except (json.JSONDecodeError, yaml.YAMLError, UnicodeDecodeError) as error:
        raise UserError(f"cannot parse model config: {error}".splitlines()[0], file=str(path)) from None
    if not isinstance(data, dict):
        raise UserError("a model config must be a mapping", file=str(path))
    settings = data.pop("settings", None) or {}
    if not isinstance(settings, dict):
        raise UserError(f"settings must be a mapping, not a {type(settings).__name__}", file=str(path),
                        field="settings")
    if "spec" in data:
        spec, _ = parse_spec(str(data.pop("spec")))
        data = {**spec.model_dump(exclude_defaults=True), **data}
    try:
        return ModelSpec.model_validate(data), dict(settings)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise UserError(first["msg"], file=str(path), field=field) from None
