"""Model spec strings and model config files.

The name before the first colon picks the backend (`registry.py`), and the backend reads the rest
(`Backend.read_spec`; every HTTP backend with the one `MODEL@URL|URL...` grammar of `_urls.py`). The built-in
specs (case-sensitive backend names):

    embedded                      the offline default (OCR + small text model, bundled weights)
    openai:MODEL@BASE_URL         an OpenAI-compatible chat-completions endpoint, e.g.
                                  openai:Qwen2-VL-7B@http://localhost:8000/v1
    openai:MODEL@URL1|URL2|...    the same model served by several endpoints
    anthropic:MODEL[@URL]         the Anthropic Messages API (default URL https://api.anthropic.com; also
                                  several URLs with |). A model id may itself contain @ (Vertex style):
                                  only a trailing @http(s)://... is read as the URL
    gemini:MODEL[@URL]            the Gemini API (default URL https://generativelanguage.googleapis.com;
                                  several URLs with |, a trailing @URL read as anthropic: reads it)
    hf:PATH_OR_REPO_ID            a local transformers checkpoint folder, or a repo id in the local HF cache
    vllm:PATH_OR_REPO_ID          the same, run by vLLM's offline engine on CUDA GPUs (the `vllm` extra);
                                  engine settings (tensor_parallel_size, ...) go in a config file's options
    replay:FILE                   answers read from a predictions file (TSV, XLSX, JSONL or a run's
                                  samples.jsonl)
    mock[:TEXT]                   answers TEXT (default "yes") instantly: smoke tests, overhead benchmarks
    NAME:MODEL@URL[|URL2...] | NAME:PATH
                                  a backend an installed package registers (entry point `mmgauge.backends`);
                                  one built on HTTPBackend reads several URLs as `openai:` does
    FILE.yaml | FILE.yml | FILE.json
                                  a model config file (below)

A model config file is a mapping with the fields of ModelSpec (backend, model, base_url, path, api_key_env,
options) or `spec: "openai:MODEL@URL"` in their place, and optionally:

    settings:   BackendSettings fields (concurrency, batch_size, timeout_s, max_retries, backoff_base_s,
                backoff_max_s, max_response_bytes, accept_empty, unreachable_timeout_s, cache_namespace)
    request:    HTTP backends' request options (extra_body, headers, max_completion_tokens, api_version,
                deployment; see backends/request_options.py), kept in options["request"]

Unknown or misspelled keys anywhere in it are errors naming the key, and YAML aliases are refused (an alias
bomb expands a few lines into gigabytes). API keys are never part of a spec: `api_key_env` (or --api-key-env)
names the environment variable to read.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from mmgauge.backends import registry
from mmgauge.backends.base import Backend, BackendSettings
from mmgauge.backends.request_options import RequestOptions
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelSpec

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def parse_spec(text: str) -> tuple[ModelSpec, dict[str, Any]]:
    """A spec string (or config file path) -> (ModelSpec, settings overrides from a config file).

    The name before the first colon picks the backend, which reads the rest itself (`Backend.read_spec`)."""
    text = text.strip()
    if not text:
        raise UserError("empty model spec", field="--model")
    if text.lower().endswith(CONFIG_SUFFIXES) and ":" not in text.split("/")[0].replace("\\", ""):
        return _load_config_file(Path(text))
    backend, _, rest = text.partition(":")
    if not registry.known(backend):
        raise UserError(
            f"unknown model spec '{text}'; use embedded, openai:MODEL@URL, anthropic:MODEL[@URL], "
            "gemini:MODEL[@URL], hf:PATH, vllm:PATH, replay:FILE, mock[:TEXT], an installed plug-in's "
            "NAME:..., or a .yaml/.json model config file",
            field="--model",
        )
    return registry.backend_class(backend).read_spec(backend, rest), {}


def load_backend(text: str, *, api_key_env: str | None = None, **overrides: Any) -> tuple[ModelSpec, Backend]:
    """Parse a spec string or config file and build its backend; `overrides` are BackendSettings fields."""
    spec, file_settings = parse_spec(text)
    if api_key_env:
        spec = spec.model_copy(update={"api_key_env": api_key_env})
    try:
        settings = BackendSettings.model_validate({**file_settings, **overrides})
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        message = f"unknown setting '{field}'" if first["type"] == "extra_forbidden" else first["msg"]
        raise UserError(message, field=field) from None
    return spec, registry.build_backend(spec, settings)


# -- model config files ------------------------------------------------------------------------------------

_TOP_LEVEL = (*ModelSpec.model_fields, "spec", "settings", "request")


def _unknown(kind: str, key: object, known: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(str(key), [str(k) for k in known], n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f"; known: {', '.join(known)}"
    return f"unknown {kind} '{key}'{hint}"


def _read_config(path: Path) -> Any:
    if not path.is_file():
        raise UserError("model config file not found", file=str(path))
    from mmgauge.core.yaml_files import read_yaml_or_json  # PyYAML only for a model given as a file

    return read_yaml_or_json(path, what="model config")


def _load_config_file(path: Path) -> tuple[ModelSpec, dict[str, Any]]:
    data = _read_config(path)
    file = str(path)
    if not isinstance(data, dict):
        raise UserError("a model config must be a mapping", file=file)
    for key in data:
        if key not in _TOP_LEVEL:
            raise UserError(_unknown("key", key, _TOP_LEVEL), file=file, field=str(key))
    settings = _settings(data.pop("settings", None), file)
    request = data.pop("request", None)
    if "spec" in data:
        spec, _ = parse_spec(str(data.pop("spec")))
        data = {**spec.model_dump(exclude_defaults=True), **data}
    if request is not None:
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise UserError("must be a mapping", file=file, field="options")
        if "request" in options:
            raise UserError("give the request section once (top level or options.request)", file=file,
                            field="request")
        parsed = RequestOptions.parse(request, file=file)
        data["options"] = {**options, "request": parsed.model_dump(exclude_defaults=True)}
    elif isinstance(data.get("options"), dict) and "request" in data["options"]:
        RequestOptions.parse(data["options"]["request"], file=file, field="options.request")
    try:
        return ModelSpec.model_validate(data), settings
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise UserError(first["msg"], file=file, field=field) from None


def _settings(raw: Any, file: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        message = f"settings must be a mapping, not a {type(raw).__name__}"
        raise UserError(message, file=file, field="settings")
    known = list(BackendSettings.model_fields)
    for key in raw:
        if key not in known:
            raise UserError(_unknown("setting", key, known), file=file, field=f"settings.{key}")
    try:
        BackendSettings.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise UserError(first["msg"], file=file, field=f"settings.{field}") from None
    return dict(raw)
