"""Benchmarks by name: the built-in ones below, plus any an installed package registers.

A package adds benchmarks through the entry point group `mmgauge.benchmarks`, e.g. in its pyproject.toml:

    [project.entry-points."mmgauge.benchmarks"]
    pope = "mmgauge_pope:PopeBenchmark"

Modules are imported only when their benchmark is used, so a broken or heavy plug-in costs nothing until then.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from mmgauge.benchmarks.base import AnyBenchmark, Benchmark
from mmgauge.core.errors import UserError
from mmgauge.core.loading import import_class

ENTRY_POINT_GROUP = "mmgauge.benchmarks"

#: name -> "module:Class" of the benchmarks shipped with mmgauge.
BENCHMARKS: dict[str, str] = {
    "mmbench": "mmgauge.benchmarks.mmbench.bench:MMBenchBenchmark",
    "mme": "mmgauge.benchmarks.mme.bench:MMEBenchmark",
    "m3gia": "mmgauge.benchmarks.m3gia.bench:M3GIABenchmark",
    "pope": "mmgauge.benchmarks.pope.bench:PopeBenchmark",
    "mmstar": "mmgauge.benchmarks.mmstar.bench:MMStarBenchmark",
}


def plugin_benchmarks() -> dict[str, str]:
    """name -> "module:Class" of the benchmarks installed packages register (built-in names win)."""
    found: dict[str, str] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name.strip().lower(), entry.value)
    return found


def all_benchmarks() -> dict[str, str]:
    return {**plugin_benchmarks(), **BENCHMARKS}


def benchmark_names() -> list[str]:
    """The built-in benchmarks: what a run with no --bench evaluates (on their built-in samples)."""
    return sorted(BENCHMARKS)


def benchmark_class(name: str) -> type[AnyBenchmark]:
    key = name.strip().lower()
    target = BENCHMARKS.get(key) or plugin_benchmarks().get(key)
    if target is None:
        known = ", ".join(sorted(all_benchmarks())) or "(none)"
        raise UserError(f"unknown benchmark '{name}'; known benchmarks: {known}", field="--bench")
    cls: type[AnyBenchmark] = import_class(target, Benchmark, kind="benchmark", name=name,
                                           field="--bench")
    return cls


def get_benchmark(name: str, options: Any = None) -> AnyBenchmark:
    """An instance of benchmark `name` with `options` (its options model, a mapping, or None)."""
    return benchmark_class(name)(options)
