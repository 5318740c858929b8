"""Backends by name, imported only when used so that optional dependencies stay optional.

Installed packages add backends through the entry point group `mmgauge.backends` (name -> "module:Class").
Each backend reads its own spec `NAME:...` (`Backend.read_spec`; `spec.py` finds the class by its name here).
"""

from __future__ import annotations

from mmgauge.backends.base import Backend, BackendSettings
from mmgauge.core.entry_points import declared
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


#: The entry point group installed packages register backends in (name -> "module:Class").
ENTRY_POINT_GROUP = "mmgauge.backends"


def plugin_backends() -> dict[str, str]:
    """name -> "module:Class" of the backends installed packages register; a built-in's name stays the
    built-in's (`BACKENDS`, the one list of them)."""
    return {name: target for name, target in declared(ENTRY_POINT_GROUP) if name not in BACKENDS}


def known(name: str) -> bool:
    """Whether `name` is a built-in backend or one an installed package registers."""
    return name in BACKENDS or name in plugin_backends()


def backend_class(name: str) -> type[Backend]:
    entry = BACKENDS.get(name)
    target = entry[0] if entry is not None else plugin_backends().get(name)
    if target is None:
        names = ", ".join(sorted({*BACKENDS, *plugin_backends()}))
        raise UserError(f"unknown backend '{name}'; known: {names}", field="--model")
    cls: type[Backend] = import_class(target, Backend, kind="backend", name=name, field="--model")
    return cls


def build_backend(spec: ModelSpec, settings: BackendSettings) -> Backend:
    return backend_class(spec.backend).from_spec(spec, settings)
