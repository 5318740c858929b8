"""Backends by name, imported only when used so that optional dependencies stay optional.

Installed packages add backends through the entry point group `mmgauge.backends` (name -> "module:Class");
their specs are `NAME:MODEL@URL` or `NAME:PATH` (see `spec.py`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from mmgauge.backends.base import Backend, BackendSettings
from mmgauge.backends.plugins import plugin_backends
from mmgauge.backends.spec import parse_spec
from mmgauge.core.errors import UserError
from mmgauge.core.loading import import_class
from mmgauge.core.types import ModelSpec

#: name -> ("module:Class", one-line description)
BACKENDS: dict[str, tuple[str, str]] = {
    "embedded": (
        "mmgauge.backends.embedded:EmbeddedBackend",
        "offline default: OCR + SmolLM2-135M-Instruct (text-in-image baseline)",
    ),
    "openai": (
        "mmgauge.backends.openai:OpenAIBackend",
        "OpenAI-compatible chat completions (vLLM, SGLang, LMDeploy, Ollama, hosted APIs)",
    ),
    "anthropic": (
        "mmgauge.backends.anthropic:AnthropicBackend",
        "Anthropic Messages API (api.anthropic.com or a compatible gateway)",
    ),
    "gemini": (
        "mmgauge.backends.gemini:GeminiBackend",
        "Gemini API generateContent (generativelanguage.googleapis.com or a compatible gateway)",
    ),
    "hf": ("mmgauge.backends.hf:HFBackend", "local Hugging Face transformers vision-language model"),
    "vllm": ("mmgauge.backends.vllm:VLLMBackend", "offline batched generation, vLLM's engine (CUDA GPUs)"),
    "replay": ("mmgauge.backends.replay:ReplayBackend", "answers from an existing predictions file"),
    "mock": ("mmgauge.backends.mock:MockBackend", "answers a fixed text instantly (tests, benchmarks)"),
}


def backend_class(name: str) -> type[Backend]:
    entry = BACKENDS.get(name)
    target = entry[0] if entry is not None else plugin_backends().get(name)
    if target is None:
        known = ", ".join(sorted({*BACKENDS, *plugin_backends()}))
        raise UserError(f"unknown backend '{name}'; known: {known}", field="--model")
    cls: type[Backend] = import_class(target, Backend, kind="backend", name=name, field="--model")
    return cls


def build_backend(spec: ModelSpec, settings: BackendSettings) -> Backend:
    return backend_class(spec.backend).from_spec(spec, settings)


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
    return spec, build_backend(spec, settings)
