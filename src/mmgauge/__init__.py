"""mmgauge: evaluate multimodal LLMs exactly as the benchmark papers define it.

The Python API (imported on first use, so `import mmgauge` stays cheap):

    evaluate(model, benchmarks, data, out, ...) -> RunResults   run benchmarks into a run folder
    evaluate_async(...)                                           the same, inside a running event loop
    request_from_config(path, overrides) -> EvalRequest          a run configuration file (or a run's
                                                                  manifest) as evaluate_async's request
    load_run(path) -> Run                                         typed results, manifest, records DataFrame
    score_mme(path), score_mmbench(path), m3gia_gia(counts, language), general_level(results)
                                                                  score files produced elsewhere
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
    "score_mme": "mmgauge.benchmarks.mme.answers",
    "score_mmbench": "mmgauge.api.scores",
    "score_mmbench_async": "mmgauge.api.scores",
    "m3gia_gia": "mmgauge.api.scores",
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
        raise AttributeError(f"module 'mmgauge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
