"""What this installation can evaluate: benchmarks (with their options and prompt presets) and backends."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from mmgauge.benchmarks.base import AnyBenchmark


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
    #: Whether it has a built-in sample (else a run of it needs `--data`).
    sample: bool = True
    #: Why it could not be loaded (a broken plug-in), else None.
    problem: str | None = None


class BackendInfo(BaseModel):
    name: str
    description: str
    target: str
    plugin: bool = False
    #: Why it could not be loaded (a broken plug-in), else None.
    problem: str | None = None


def list_benchmarks() -> list[BenchmarkInfo]:
    """Every benchmark, each loaded on its own: a broken plug-in is listed with its `problem`."""
    from mmgauge.benchmarks.registry import BENCHMARKS, benchmark_class, builtin_benchmarks, plugin_benchmarks
    from mmgauge.core.loading import LoadError, describe

    builtin = {**builtin_benchmarks(), **BENCHMARKS}
    found = [(name, target, False) for name, target in sorted(builtin.items())]
    found += [(name, target, True) for name, target in sorted(plugin_benchmarks().items())
              if name not in builtin]
    out = []
    for name, target, plugin in found:
        try:
            out.append(_benchmark_info(benchmark_class(name), name, target, plugin))
            continue
        except LoadError as error:
            problem = error.reason
        except Exception as error:
            if not plugin:  # a fault in mmgauge's own benchmarks is a bug to see whole
                raise
            problem = f"({target}) cannot be described: {describe(error)}"
        out.append(BenchmarkInfo(name=name, description="", target=target, plugin=plugin, problem=problem))
    return out


def _benchmark_info(cls: type[AnyBenchmark], name: str, target: str, plugin: bool) -> BenchmarkInfo:
    options = [
        OptionInfo(name=key, type=_type_name(field.annotation), default=repr(field.default),
                   help=field.description or "")
        for key, field in cls.options_type.model_fields.items()
    ]
    prompts: list[PromptInfo] = []
    table = cls.prompt_presets
    if table is not None:
        prompts = [PromptInfo(name=n, source=table.presets[n].source) for n in table.names()]
        prompts += [PromptInfo(name=n, source=why, available=False) for n, why in table.unavailable.items()]
    return BenchmarkInfo(name=name, description=cls.description, target=target, plugin=plugin,
                         options=options, prompts=prompts, sample=cls.has_sample_data())


def list_backends() -> list[BackendInfo]:
    """Every backend, each plug-in loaded on its own: a broken one is listed with its `problem`."""
    from mmgauge.backends.registry import BACKENDS, backend_class, plugin_backends
    from mmgauge.core.loading import LoadError

    out = [BackendInfo(name=name, description=description, target=target)
           for name, (target, description) in sorted(BACKENDS.items())]
    for name, target in sorted(plugin_backends().items()):
        try:
            cls = backend_class(name)
        except LoadError as problem:
            out.append(BackendInfo(name=name, description="", target=target, plugin=True,
                                   problem=problem.reason))
            continue
        doc = (getattr(cls, "description", None) or cls.__doc__ or "").strip()
        out.append(BackendInfo(name=name, description=doc.splitlines()[0] if doc else "", target=target,
                               plugin=True))
    return out


def _type_name(annotation: object) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "")
