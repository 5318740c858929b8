"""Benchmarks by name, found the same way for all: the entry point group `mmgauge.benchmarks`.

mmgauge declares its own benchmarks there (pyproject.toml), and a package adds its benchmarks the same way:

    [project.entry-points."mmgauge.benchmarks"]
    pope = "mmgauge_pope:PopeBenchmark"

Modules are imported only when their benchmark is used, so a broken or heavy plug-in costs nothing until then.
Everything else the framework knows of a benchmark it asks the class (its hooks, `benchmarks/base.py`).
"""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Final

from mmgauge.benchmarks.base import AnyBenchmark, Benchmark
from mmgauge.core.errors import UserError
from mmgauge.core.loading import import_class

ENTRY_POINT_GROUP: Final = "mmgauge.benchmarks"
#: Where mmgauge's own benchmarks live: an entry point naming a class under it is a built-in.
BUILTIN_PREFIX: Final = "mmgauge.benchmarks."

#: name -> "module:Class" registered in this process (tests' stand-ins); these win over entry points.
BENCHMARKS: dict[str, str] = {}


def _entry_points() -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name.strip().lower(), entry.value)
    return found


def _builtin_fallback(declared: dict[str, str]) -> dict[str, str]:
    """The built-in packages the installed metadata does not declare, by their folders.

    Only for a source tree newer than its installed metadata (an editable install made before a built-in
    was declared in pyproject.toml): entry points are read from the metadata written at install time. Each
    built-in is a folder `benchmarks/<name>/` whose `bench.py` sets `BENCHMARK`; a test checks that
    pyproject.toml declares every such folder, so an installed wheel never relies on this.
    """
    here = Path(__file__).parent
    found: dict[str, str] = {}
    for bench in sorted(here.glob("*/bench.py")):
        name = bench.parent.name
        if name not in declared:
            found[name] = f"{BUILTIN_PREFIX}{name}.bench:BENCHMARK"
    return found


def _split(declared: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(built-in, plug-in) benchmarks of the entry points `declared` (built-in names win)."""
    ours = {name: target for name, target in declared.items() if target.startswith(BUILTIN_PREFIX)}
    builtin = {**ours, **_builtin_fallback(declared)}
    return builtin, {name: target for name, target in declared.items() if name not in builtin}


def builtin_benchmarks() -> dict[str, str]:
    """name -> "module:Class" of the benchmarks shipped with mmgauge."""
    return _split(_entry_points())[0]


def plugin_benchmarks() -> dict[str, str]:
    """name -> "module:Class" of the benchmarks installed packages register (built-in names win)."""
    return _split(_entry_points())[1]


def all_benchmarks() -> dict[str, str]:
    # One scan of the installed metadata (5 ms each), not three: every benchmark lookup comes here.
    builtin, plugins = _split(_entry_points())
    return {**plugins, **builtin, **BENCHMARKS}


def benchmark_names() -> list[str]:
    """What a run with no --bench evaluates (on their built-in samples): the built-ins that say so."""
    return sorted(name for name in builtin_benchmarks() if benchmark_class(name).in_default_run)


def benchmark_class(name: str) -> type[AnyBenchmark]:
    key = name.strip().lower()
    target = all_benchmarks().get(key)
    if target is None:
        known = ", ".join(sorted(all_benchmarks())) or "(none)"
        raise UserError(f"unknown benchmark '{name}'; known benchmarks: {known}", field="--bench")
    cls: type[AnyBenchmark] = import_class(target, Benchmark, kind="benchmark", name=name,
                                           field="--bench")
    return cls


def known_class(name: str) -> type[AnyBenchmark] | None:
    """The class of benchmark `name` when it is installed and loads, else None (a result read back by a
    display needs no more than the generic parts then)."""
    try:
        return benchmark_class(name)
    except UserError:
        return None


def get_benchmark(name: str, options: Any = None) -> AnyBenchmark:
    """An instance of benchmark `name` with `options` (its options model, a mapping, or None)."""
    return benchmark_class(name)(options)
