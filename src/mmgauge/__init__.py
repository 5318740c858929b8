"""mmgauge: evaluate multimodal LLMs exactly as the benchmark papers define it.

The Python API (imported on first use, so `import mmgauge` stays cheap):

    evaluate(model, benchmarks, data, out, ...) -> RunResults   run benchmarks into a run folder
    evaluate_async(...)                                           the same, inside a running event loop
    request_from_config(path, overrides) -> EvalRequest          a run configuration file (or a run's
                                                                  manifest) as evaluate_async's request
    load_run(path) -> Run                                         typed results, manifest, records DataFrame
    score_mme(path), m3gia_gia(counts, language), general_level(results)
                                                                  score files produced elsewhere
    a benchmark's own functions (its `library_functions` hook)    such as its scorer of other toolkits' files
    export_table(runs, out=None) -> DataFrame                     every metric of runs as one tidy table
    log_wandb(runs, project=...)                                  metrics, table and report to W&B
    compare(runs) -> Comparison                                   paired tests between runs or answer files
    judge_audit(run) -> JudgeAudit                                what the judge decided (judge-free bounds)
    audit_judge(run, judge, sample=N) -> AgreementStudy           judge-vs-rule agreement (kappa)
    with input_limits(max_bytes=..., max_rows=...):               raise the caps on packed inputs
"""

from __future__ import annotations

import importlib
from typing import Any

from mmgauge.core.version import __version__

_EXPORTS = {
    "evaluate": "mmgauge.api.evaluate",
    "evaluate_async": "mmgauge.api.evaluate",
    "EvalRequest": "mmgauge.api.request",
    "RunConfig": "mmgauge.api.request",
    "request_from_config": "mmgauge.api.run_config",
    "load_run": "mmgauge.api.runs",
    "Run": "mmgauge.api.runs",
    "general_level": "mmgauge.api.scores",
    "export_table": "mmgauge.api.export",
    "log_wandb": "mmgauge.api.wandb_log",
    "compare": "mmgauge.api.compare",
    "Comparison": "mmgauge.comparison.core",
    "judge_audit": "mmgauge.api.audit",
    "audit_judge": "mmgauge.api.audit",
    "audit_judge_async": "mmgauge.api.audit",
    "JudgeAudit": "mmgauge.store.judge_audit",
    "AgreementStudy": "mmgauge.store.judge_audit",
    "write_report": "mmgauge.report",
    "list_benchmarks": "mmgauge.api.catalog",
    "list_backends": "mmgauge.api.catalog",
    "input_limits": "mmgauge.datasources.limits",
    "RunResults": "mmgauge.store.results",
    "BenchmarkResults": "mmgauge.store.results",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        targets = _benchmark_functions() if not name.startswith("_") else {}
        if name not in targets:
            raise AttributeError(f"module 'mmgauge' has no attribute {name!r}")
        module, _, name = targets[name].partition(":")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def _benchmark_functions() -> dict[str, str]:
    """name -> "module:function" of the built-in benchmarks' `library_functions` hooks (read as the registry
    reads a class's plain attributes: from its source, without importing the benchmark)."""
    from mmgauge.benchmarks.registry import all_benchmarks, builtin_benchmarks, class_attribute

    known = all_benchmarks()
    found: dict[str, str] = {}
    for benchmark in sorted(builtin_benchmarks()):
        for target in class_attribute(benchmark, "library_functions", known) or ():
            found.setdefault(target.rpartition(":")[2], target)
    return found


def __dir__() -> list[str]:
    return sorted({*__all__, *_benchmark_functions()})
