"""`audit-judge`: how far a judge agrees with the rules, measured where the rules are trusted.

A seeded sample of N answers the rules read (any rule; not the judge, not a random letter, not unread) is
given to the judge exactly as a run's judge pass would give it (same prompt, same tries, same option order
for shuffled rounds), and what the judge reads is set beside what the rules read: Cohen's kappa with
its Fleiss-Cohen-Everitt interval, and the raw agreement with its Clopper-Pearson interval (which does not
collapse when they agree on everything). A second judge (`against`) is asked the same and compared with the
rules and with the first judge. Labels are the answers read (yes/no, option letters; Z for none of the
options), or "none" when a judge gave nothing readable. The study is appended to the run folder's
`judge_agreement.json`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmgauge.benchmarks.registry import known_class
from mmgauge.comparison.audit import rule_unresolved
from mmgauge.core.errors import UserError
from mmgauge.core.types import DatasetEntry, RunManifest, Sample, SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import FAILURE
from mmgauge.extraction.reasoning import text_read
from mmgauge.stats.agreement import cohen_kappa
from mmgauge.store.judge_audit import Agreement, AgreementItem, AgreementStudy, JudgeAgreement
from mmgauge.store.run_folder import RunFolder

NONE = "none"
CONCURRENCY = 8


@dataclass
class Judges:
    judge: Judge
    label: str
    against: Judge | None = None
    against_label: str | None = None


def rule_read(records: Sequence[SampleRecord], benchmarks: Sequence[str] | None = None) -> list[SampleRecord]:
    """The records whose answer a rule read, of the benchmarks that have a judge step, in a fixed order."""
    out = []
    unread = {name: rule_unresolved(name) for name in {record.benchmark for record in records}}
    for record in records:
        loose = unread[record.benchmark]
        ext = record.extraction
        if loose is None or (benchmarks and record.benchmark not in benchmarks):
            continue
        if ext is None or not record.response.ok or ext.answer is None or ext.method in loose | {FAILURE}:
            continue
        out.append(record)
    return sorted(out, key=lambda r: r.key)


class _Reader:
    """Asks a judge about one record as the benchmark's judge pass would."""

    def __init__(self, manifest: RunManifest, records: Sequence[SampleRecord]) -> None:
        self.benchmarks: dict[str, Any] = {}
        self.samples: dict[str, dict[str, Sample]] = {}
        #: The benchmarks whose judge reads a record alone (their `record_judge` hook): no data to load.
        self.readers: dict[str, Any] = {}
        #: The benchmarks that ask their judge with the sample at hand (their `sample_judge` hook).
        self.sample_readers: dict[str, Any] = {}
        for name in sorted({r.benchmark for r in records}):
            cls = known_class(name)
            reader = cls.hook("record_judge") if cls is not None else None
            if reader is not None:
                self.readers[name] = reader
                continue
            again = cls.hook("sample_judge") if cls is not None else None
            if again is not None:
                self.sample_readers[name] = again
            entry = next((d for d in manifest.datasets if d.benchmark == name), None)
            if entry is None:
                raise UserError(f"the run's manifest names no data for {name}", field="datasets")
            self.benchmarks[name], self.samples[name] = _load(entry)

    async def read(self, judge: Judge, record: SampleRecord) -> str:
        text = text_read(record.response.text or "", record.extraction)
        reader = self.readers.get(record.benchmark)
        if reader is not None:
            found: str | None = await reader(judge, record, text)
            return found or NONE
        sample = self.samples[record.benchmark].get(record.sample_id)
        if sample is None:
            raise UserError(f"the run's data has no sample {record.sample_id!r} any more",
                            field=record.benchmark)
        reread = self.sample_readers.get(record.benchmark)
        if reread is not None:
            again: str | None = await reread(self.benchmarks[record.benchmark], judge, sample, record, text)
            return again or NONE
        raise UserError(f"{record.benchmark} has no way to ask its judge about a stored answer",
                        field=record.benchmark)


def _load(entry: DatasetEntry) -> tuple[Any, dict[str, Sample]]:
    from mmgauge.benchmarks.registry import benchmark_class, get_benchmark

    fields = benchmark_class(entry.benchmark).options_type.model_fields
    bench = get_benchmark(entry.benchmark, {k: v for k, v in entry.options.items() if k in fields})
    dataset = bench.load(Path(entry.data))
    if dataset.fingerprint != entry.fingerprint:
        raise UserError(f"the {entry.benchmark} data changed since the run (fingerprint "
                        f"{dataset.fingerprint[:12]}, the run's {entry.fingerprint[:12]}): the judge would "
                        "see other questions",
                        file=entry.data)
    return bench, {sample.id: sample for sample in dataset.samples}


def _agreement(items: Sequence[AgreementItem], level: float) -> Agreement:
    if not items:
        return Agreement(items=0)
    rules = [i.rule for i in items]
    judged = [i.judge for i in items]
    out = Agreement(items=len(items), judge_vs_rules=cohen_kappa(judged, rules, level=level),
                    judge_unreadable=sum(j == NONE for j in judged))
    if all(i.against is not None for i in items):
        against = [str(i.against) for i in items]
        out.against_vs_rules = cohen_kappa(against, rules, level=level)
        out.against_vs_judge = cohen_kappa(against, judged, level=level)
        out.against_unreadable = sum(a == NONE for a in against)
    return out


async def study(
    folder: RunFolder, judges: Judges, *, sample: int, seed: int, benchmarks: Sequence[str] | None = None,
    level: float = 0.95,
) -> AgreementStudy:
    """Ask the judge(s) about a seeded sample of the folder's rule-read answers; keep and return the study."""
    from mmgauge.store.manifest import now

    manifest = folder.read_manifest()
    if manifest is None:
        raise UserError(f"the run folder has no {folder.name_of('manifest')}: its data is unknown",
                        file=str(folder.path))
    candidates = rule_read(folder.records(), benchmarks)
    if not candidates:
        raise UserError("the run has no answers read by rules in a benchmark with a judge step",
                        file=str(folder.path))
    chosen = sorted(random.Random(seed).sample(candidates, min(sample, len(candidates))), key=lambda r: r.key)
    reader = _Reader(manifest, chosen)
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(record: SampleRecord) -> AgreementItem:
        async with gate:
            first = await reader.read(judges.judge, record)
            second = await reader.read(judges.against, record) if judges.against is not None else None
        assert record.extraction is not None and record.extraction.answer is not None
        return AgreementItem(benchmark=record.benchmark, sample_id=record.sample_id, round=record.round,
                             rule=record.extraction.answer, judge=first, against=second)

    items = list(await asyncio.gather(*(one(record) for record in chosen)))
    names = sorted({i.benchmark for i in items})
    result = AgreementStudy(
        judge=judges.label, against=judges.against_label, sample=sample, seed=seed, created_at=now(),
        overall=_agreement(items, level),
        per_benchmark={name: _agreement([i for i in items if i.benchmark == name], level) for name in names},
        items=items,
    )
    with folder.lock(["mmgauge", "audit-judge", str(folder.path)], now()):
        kept = folder.read_judge_agreement() or JudgeAgreement()
        kept.studies.append(result)
        folder.write_judge_agreement(kept)
    return result
