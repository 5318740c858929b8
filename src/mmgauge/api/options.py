"""Benchmark options from the command line's flags or `evaluate(options=...)`, typed per benchmark.

Options come shared (`{"parser": "words"}`: given to every benchmark that declares `parser`) or per benchmark
(`{"mme": {"parser": "words"}}`). A shared option no benchmark of the run declares is an error, as is an
unknown per-benchmark key: nothing is silently ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mmgauge.core.errors import UserError


def benchmark_options(
    names: Sequence[str], options: Mapping[str, Any], *, seed: int = 0
) -> dict[str, dict[str, Any]]:
    from mmgauge.benchmarks.registry import benchmark_class

    declared = {name: set(benchmark_class(name).options_type.model_fields) for name in names}
    out: dict[str, dict[str, Any]] = {name: {"seed": seed} for name in names}
    for key, value in options.items():
        if key in declared and isinstance(value, Mapping):
            out[key].update(value)
            continue
        takers = [name for name in names if key in declared[name]]
        if not takers:
            flag = "--" + key.replace("_", "-")
            raise UserError(f"no benchmark of this run ({', '.join(names)}) has the option '{key}'",
                            field=flag)
        for name in takers:
            out[name][key] = value
    return out


def parse_assignments(values: Sequence[str]) -> dict[str, dict[str, Any]]:
    """`--set BENCH.KEY=VALUE` flags as per-benchmark options (VALUE is read as JSON when it parses)."""
    import json

    out: dict[str, dict[str, Any]] = {}
    for text in values:
        target, eq, raw = text.partition("=")
        bench, dot, key = target.partition(".")
        if not eq or not dot or not bench.strip() or not key.strip():
            raise UserError(f"'{text}' is not BENCHMARK.OPTION=VALUE", field="--set")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        out.setdefault(bench.strip().lower(), {})[key.strip()] = value
    return out
