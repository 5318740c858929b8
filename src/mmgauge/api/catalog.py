"""What this installation can evaluate: benchmarks (with their options and prompt presets) and backends."""

from __future__ import annotations

from pydantic import BaseModel, Field


class PromptInfo(BaseModel):
    name: str
    source: str
    available: bool = True


class OptionInfo(BaseModel):
    name: str
    type: str
    default: str
    help: str = ""


class BenchmarkInfo(BaseModel):
    name: str
    description: str
    #: "module:Class"; `plugin` when an installed package registers it through an entry point.
    target: str
    plugin: bool = False
    options: list[OptionInfo] = Field(default_factory=list)
    prompts: list[PromptInfo] = Field(default_factory=list)
    #: Why it could not be loaded (a broken plug-in), else None.
    problem: str | None = None


class BackendInfo(BaseModel):
    name: str
    description: str
    target: str
    plugin: bool = False


def list_benchmarks() -> list[BenchmarkInfo]:
    from mmgauge.benchmarks.registry import BENCHMARKS, benchmark_class, plugin_benchmarks
    from mmgauge.core.errors import UserError

    found = [(name, target, False) for name, target in sorted(BENCHMARKS.items())]
    found += [(name, target, True) for name, target in sorted(plugin_benchmarks().items())
              if name not in BENCHMARKS]
    out = []
    for name, target, plugin in found:
        try:
            cls = benchmark_class(name)
        except UserError as problem:
            out.append(BenchmarkInfo(name=name, description="", target=target, plugin=plugin,
                                     problem=problem.message))
            continue
        options = [
            OptionInfo(name=key, type=_type_name(field.annotation), default=repr(field.default),
                       help=field.description or "")
            for key, field in cls.options_type.model_fields.items()
        ]
        prompts: list[PromptInfo] = []
        table = cls.prompt_presets
        if table is not None:
            prompts = [PromptInfo(name=n, source=table.presets[n].source) for n in table.names()]
            prompts += [PromptInfo(name=n, source=why, available=False)
                        for n, why in table.unavailable.items()]
        out.append(BenchmarkInfo(name=name, description=cls.description, target=target, plugin=plugin,
                                 options=options, prompts=prompts))
    return out


def list_backends() -> list[BackendInfo]:
    from mmgauge.backends.plugins import plugin_backends
    from mmgauge.backends.registry import BACKENDS

    out = [BackendInfo(name=name, description=description, target=target)
           for name, (target, description) in sorted(BACKENDS.items())]
    for name, target in sorted(plugin_backends().items()):
        description = _plugin_description(target)
        out.append(BackendInfo(name=name, description=description, target=target, plugin=True))
    return out


def _plugin_description(target: str) -> str:
    import importlib

    module_name, _, class_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        return f"(cannot be loaded: {error})"
    doc = (getattr(cls, "description", None) or cls.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def _type_name(annotation: object) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "")
