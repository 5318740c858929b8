"""Benchmarks by name, found the same way for all: the entry point group `mmgauge.benchmarks`.

mmgauge declares its own benchmarks there (pyproject.toml), and a package adds its benchmarks the same way:

    [project.entry-points."mmgauge.benchmarks"]
    pope = "mmgauge_pope:PopeBenchmark"

Modules are imported only when their benchmark is used, so a broken or heavy plug-in costs nothing until then.
Everything else the framework knows of a benchmark it asks the class (its hooks, `benchmarks/base.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mmgauge.core.entry_points import declared as declared_entry_points
from mmgauge.core.errors import UserError
from mmgauge.core.loading import UNDECLARED, declared_constant, import_class

if TYPE_CHECKING:  # the interface (pydantic, the core types) is imported where a class is loaded
    from mmgauge.benchmarks.base import AnyBenchmark

ENTRY_POINT_GROUP: Final = "mmgauge.benchmarks"
#: Where mmgauge's own benchmarks live: an entry point naming a class under it is a built-in.
BUILTIN_PREFIX: Final = "mmgauge.benchmarks."

#: name -> "module:Class" registered in this process (tests' stand-ins); these win over entry points.
BENCHMARKS: dict[str, str] = {}


def _entry_points() -> dict[str, str]:
    found: dict[str, str] = {}
    for name, target in declared_entry_points(ENTRY_POINT_GROUP):
        found.setdefault(name.strip().lower(), target)
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


def _builtins(declared: dict[str, str]) -> dict[str, str]:
    ours = {name: target for name, target in declared.items() if target.startswith(BUILTIN_PREFIX)}
    return {**ours, **_builtin_fallback(declared)}


def builtin_benchmarks() -> dict[str, str]:
    """name -> "module:Class" of the benchmarks shipped with mmgauge."""
    return _builtins(_entry_points())


def _plugins(declared: dict[str, str], builtin: dict[str, str]) -> dict[str, str]:
    return {name: target for name, target in declared.items() if name not in builtin}


def plugin_benchmarks() -> dict[str, str]:
    """name -> "module:Class" of the benchmarks installed packages register (built-in names win)."""
    declared = _entry_points()
    return _plugins(declared, _builtins(declared))


def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """`builtin_benchmarks()` and `all_benchmarks()`, from one reading of the installed packages' entry
    points."""
    declared = _entry_points()
    builtin = _builtins(declared)
    return builtin, {**_plugins(declared, builtin), **builtin, **BENCHMARKS}


def all_benchmarks() -> dict[str, str]:
    return _tables()[1]


def benchmark_names() -> list[str]:
    """What a run with no --bench evaluates (on their built-in samples): the built-ins that say so."""
    return sorted(name for name in builtin_benchmarks() if benchmark_class(name).in_default_run)


def benchmark_class(name: str) -> type[AnyBenchmark]:
    key = name.strip().lower()
    target = all_benchmarks().get(key)
    if target is None:
        known = ", ".join(sorted(all_benchmarks())) or "(none)"
        raise UserError(f"unknown benchmark '{name}'; known benchmarks: {known}", field="--bench")
    from mmgauge.benchmarks.base import Benchmark

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


def class_attribute(name: str, attribute: str, known: Mapping[str, str] | None = None) -> Any:
    """The class attribute `attribute` of benchmark `name` (`known`: `all_benchmarks()`, when the caller has
    it); None where there is no such benchmark, or where its class is imported and does not load (as
    `known_class` says).

    A built-in's is read from its class's source where that sets it plainly (a string, number, bool or
    None, or a tuple of those), so that the command line imports none of the benchmark to find `score
    NAME`: its class's module imports everything the benchmark does (readers, prompts, judge, scoring),
    which the command may not need. A plug-in's class, or a built-in's that sets the attribute otherwise,
    is imported and asked. The class is what holds either way; a test checks that both ways agree for
    every built-in."""
    target = (all_benchmarks() if known is None else known).get(name.strip().lower())
    if target is None:
        return None
    if target.startswith(BUILTIN_PREFIX):
        found = declared_constant(target, attribute)
        if found is not UNDECLARED:
            return found
    cls = known_class(name)
    return None if cls is None else getattr(cls, attribute, None)


def hook_target(name: str, attribute: str, known: Mapping[str, str] | None = None) -> str | None:
    """The "module:attribute" the hook `attribute` of benchmark `name` names (`Benchmark.hook` imports it),
    found as `class_attribute` finds it; None where it is unset."""
    found = class_attribute(name, attribute, known)
    return None if found is None else str(found)


def command_hooks(attribute: str) -> list[str]:
    """The benchmarks whose class names a command in `attribute` (`score_command`, `export_command`), among
    those a run evaluates by default (in `benchmark_names`' order), found without importing them."""
    builtin, known = _tables()
    return [name for name in sorted(builtin)
            if class_attribute(name, "in_default_run", known) and hook_target(name, attribute, known)]


def vlmevalkit_names(*others: str) -> dict[str, tuple[str, ...]]:
    """The VLMEvalKit dataset names (the class's `vlmevalkit_names` hook) of each built-in benchmark and of
    `others` (a plug-in being run: others are not imported for this), for `datasources.locate`; read as
    `class_attribute` reads them (a run imports no other benchmark for this)."""
    known = all_benchmarks()
    found = {}
    for name in sorted({*builtin_benchmarks(), *others}):
        names = class_attribute(name, "vlmevalkit_names", known)
        if names:
            found[name] = tuple(names)
    return found


def get_benchmark(name: str, options: Any = None) -> AnyBenchmark:
    """An instance of benchmark `name` with `options` (its options model, a mapping, or None)."""
    return benchmark_class(name)(options)
