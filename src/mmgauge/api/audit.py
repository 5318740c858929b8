"""`audit_judge(run, ...)`: judge-vs-rule (and judge-vs-judge) agreement on a sample of a run's answers, and
`judge_audit(run)`: what the judge decided in a run (judge-free bounds). Methods: docs/statistics.md."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mmgauge.store.judge_audit import AgreementStudy, JudgeAudit


def judge_audit(run: str | Path) -> JudgeAudit:
    """The run's stored judge audit (`judge_audit.json`), or one computed from its records if it has none."""
    from mmgauge.comparison.audit import audit_folder
    from mmgauge.store.run_folder import RunFolder

    folder = RunFolder(run).require()
    return folder.read_judge_audit() or audit_folder(folder)


def audit_judge(
    run: str | Path,
    judge: str | None = None,
    *,
    sample: int = 100,
    seed: int = 0,
    against: str | None = None,
    benchmarks: Sequence[str] | None = None,
    cache: bool = True,
    cache_path: str | Path | None = None,
    level: float = 0.95,
) -> AgreementStudy:
    """Re-read `sample` answers the rules read in run folder `run` with `judge` (a model spec; default: the
    judge the run was scored with) and, if given, with a second judge `against`; kappa and raw agreement
    with their intervals. The study is appended to the folder's `judge_agreement.json`.

    Judge requests go through the response cache (`cache=False`: neither read nor written).
    """
    from mmgauge.core.sync import run_sync

    result: AgreementStudy = run_sync(audit_judge_async(
        run, judge, sample=sample, seed=seed, against=against, benchmarks=benchmarks, cache=cache,
        cache_path=cache_path, level=level))
    return result


async def audit_judge_async(
    run: str | Path,
    judge: str | None = None,
    *,
    sample: int = 100,
    seed: int = 0,
    against: str | None = None,
    benchmarks: Sequence[str] | None = None,
    cache: bool = True,
    cache_path: str | Path | None = None,
    level: float = 0.95,
) -> AgreementStudy:
    """`audit_judge` for callers inside a running event loop."""
    from mmgauge.backends.base import BackendSettings
    from mmgauge.backends.registry import build_backend
    from mmgauge.backends.spec import load_backend
    from mmgauge.comparison.agreement import Judges, study
    from mmgauge.core.errors import UserError
    from mmgauge.extraction.judge import Judge
    from mmgauge.store.cache import ResponseCache, default_cache_path
    from mmgauge.store.run_folder import RunFolder

    if sample < 1:
        raise UserError("--sample must be at least 1", field="--sample")
    folder = RunFolder(run).require()
    backends: list[Any] = []
    where = Path(cache_path) if cache_path else default_cache_path()
    response_cache = ResponseCache(where) if cache else None
    try:
        if judge is None:
            manifest = folder.read_manifest()
            if manifest is None or manifest.judge is None:
                raise UserError("the run was scored without a judge: name one with --judge", field="--judge")
            spec, first = manifest.judge, build_backend(manifest.judge, BackendSettings())
        else:
            spec, first = load_backend(judge)
        backends.append(first)
        judges = Judges(Judge(first, response_cache), spec.label())
        if against is not None:
            other_spec, other = load_backend(against)
            backends.append(other)
            judges.against, judges.against_label = Judge(other, response_cache), other_spec.label()
        for backend in backends:
            await backend.start()
        return await study(folder, judges, sample=sample, seed=seed, benchmarks=benchmarks, level=level)
    finally:
        for backend in backends:
            await backend.aclose()
        if response_cache is not None:
            response_cache.close()
