"""Run benchmarks against a backend: resume from the run folder, serve the cache, dispatch the rest, score.

The runner is the one writer of its run folder (through `RunFolder`, under the folder's lock, taken by the
caller). A command may ask for part of a dataset (`--limit`) or some of a folder's benchmarks: it requests
only what it asks for that is not done yet, but it always scores EVERY record the folder holds, so a narrower
command never replaces broader results. A benchmark with fewer answered records than its dataset holds
questions x rounds is `partial`.

Stored records are never trusted blindly: a record whose request fingerprint differs from the request the
current model and data would send is asked again, and every answer is read again from its raw text with the
benchmark's rules (the judge pass then re-asks the cached judge), so an edited verdict cannot stick.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mmgauge.backends.base import Backend, Request
from mmgauge.benchmarks.base import AnyBenchmark, Dataset
from mmgauge.comparison.audit import audited_benchmarks, judge_audit
from mmgauge.core.types import (
    SCHEMA_VERSION,
    Extraction,
    GenerationConfig,
    ImagePart,
    ModelResponse,
    RunManifest,
    Sample,
    SampleRecord,
)
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.reasoning import strip_reasoning
from mmgauge.parts.answers import Answer
from mmgauge.runner.executor import Executor, LocalExecutor
from mmgauge.runner.images import ImageLedger, ThumbnailWriter
from mmgauge.runner.landing import Landing
from mmgauge.runner.progress import NullProgress, ProgressSink, outcome_of
from mmgauge.runner.scoring import BenchCounts, score_benchmark, stored_entry
from mmgauge.store.cache import ResponseCache, config_part, request_fingerprint
from mmgauge.store.manifest import ManifestStore
from mmgauge.store.results import RunResults
from mmgauge.store.run_folder import Key, Logged, RunFolder
from mmgauge.store.runlog import RunLog

logger = logging.getLogger(__name__)


@dataclass
class BenchmarkRun:
    """One benchmark of a command: its whole dataset, and the samples this command asks (None: all)."""

    benchmark: AnyBenchmark
    dataset: Dataset
    selected: list[Sample] | None = None
    #: The data is mmgauge's built-in synthetic sample (labelled wherever its scores are shown).
    builtin_sample: bool = False

    @property
    def asked(self) -> list[Sample]:
        return self.dataset.samples if self.selected is None else self.selected


#: The answer the rules read in a response (None for a failed request), and whether it is right.
ReadAnswer = tuple[Extraction | None, bool | None]


@dataclass
class _Work:
    bench: AnyBenchmark
    sample: Sample
    round: int
    request: Request
    fingerprint: str


@dataclass
class _Plan:
    pending: list[_Work] = field(default_factory=list)
    #: The request fingerprint each (benchmark, sample, round) of the datasets has with this model and data.
    fingerprints: dict[Key, str] = field(default_factory=dict)
    counts: dict[str, BenchCounts] = field(default_factory=dict)


class Runner:
    def __init__(
        self,
        backend: Backend,
        config: GenerationConfig,
        folder: RunFolder | Path,
        *,
        cache: ResponseCache | None = None,
        force_cache: bool = False,
        judge: Judge | None = None,
        progress: ProgressSink | None = None,
        executor: Executor | None = None,
        keep_reasoning: bool = False,
    ) -> None:
        self.backend = backend
        self.keep_reasoning = keep_reasoning
        self.executor = executor or LocalExecutor(backend)
        self.config = config
        self.folder = folder if isinstance(folder, RunFolder) else RunFolder(folder)
        self.cache = cache if (config.deterministic or force_cache) and backend.cacheable else None
        self.judge = judge
        self.progress = progress or NullProgress()
        self._model_fingerprint = backend.fingerprint()
        self.images = ImageLedger(self.folder)
        #: Records made by this command: their answers were just read, not read again when scoring.
        #: Each with where its line is in the log (scored.jsonl copies the line of a record left unchanged).
        self._fresh: dict[Key, Logged] = {}

    def round_config(self, round: int) -> GenerationConfig:
        # Sampled rounds must differ from each other, so each round gets its own seed (and cache key).
        if self.config.deterministic or self.config.seed is None or round == 0:
            return self.config
        return self.config.model_copy(update={"seed": self.config.seed + round})

    async def run(self, runs: Sequence[BenchmarkRun], manifest: ManifestStore) -> RunResults:
        existing = self.folder.raw_records()
        plan = _Plan(counts={run.benchmark.name: BenchCounts() for run in runs})
        # Thumbnails are made from the planning on (`ImageLedger.writing_behind`), except while requests are
        # being sent (see `_dispatch`): also once the last are in flight, and while the answers are scored.
        with self.images.writing_behind() as thumbnails:
            with self.folder.open_log() as log:
                for run in runs:
                    self._plan(run, existing, plan, log)
                plan.pending = group_by_image(plan.pending)
                manifest.save()
                self.progress.start(len(plan.pending), "requests")
                try:
                    await self._dispatch(plan, log, existing, thumbnails)
                except BaseException as error:
                    self.progress.finish(outcome_of(error))
                    raise
                else:
                    self.progress.finish()
                finally:
                    manifest.touch()
            # Only the images of this command's requests get thumbnails: scoring notes those of stored records
            # older than image references too.
            thumbnails.seal()
            return await self._score_all(runs, existing, plan, manifest)

    def _plan(self, run: BenchmarkRun, existing: dict[Key, SampleRecord], plan: _Plan, log: RunLog) -> None:
        bench = run.benchmark
        asked = {sample.id for sample in run.asked}
        counts = plan.counts[bench.name]
        todo: list[_Work] = []
        # Each round's config and its part of the cache key: once per round, not per request.
        configs = [self.round_config(round) for round in range(bench.options.rounds)]
        parts = [config_part(config) for config in configs]
        for sample in run.dataset.samples:
            wanted = sample.id in asked
            for round, (config, part) in enumerate(zip(configs, parts, strict=True)):
                key = (bench.name, sample.id, round)
                done = existing.get(key)
                # Scoring compares only stored records with their fingerprints: a request neither asked for
                # nor stored needs none (a `--limit 10` run builds 10 requests, not the whole dataset's).
                if not wanted and done is None:
                    continue
                # Asked whatever its fingerprint: its new images are decoded once, for the hashes the key
                # needs and for their thumbnails both.
                surely = wanted and (done is None or not done.response.ok)
                if surely:
                    self.images.prepare(sample.images)
                messages = bench.build_messages(sample, round)
                choices = bench.answer_choices(sample, round) if self.backend.answers_from_choices else None
                fingerprint = request_fingerprint(self._model_fingerprint, part, messages, choices)
                plan.fingerprints[key] = fingerprint
                if not wanted:
                    continue
                if done is not None and done.response.ok and done.fingerprint == fingerprint:
                    counts.resumed += 1
                    continue
                request = Request(messages=messages, config=config, sample_id=sample.id, choices=choices)
                todo.append(_Work(bench, sample, round, request, fingerprint))
                if not surely:
                    self.images.prepare(sample.images)
        hits = self.cache.get_many([work.fingerprint for work in todo]) if self.cache is not None else {}
        found = [(work, hits[work.fingerprint]) for work in todo if work.fingerprint in hits]
        plan.pending.extend(work for work in todo if work.fingerprint not in hits)
        counts.cache_hits += len(found)
        self._finish_all([work for work, _ in found], [hit for _, hit in found], log, existing)

    async def _dispatch(self, plan: _Plan, log: RunLog, existing: dict[Key, SampleRecord],
                        thumbnails: ThumbnailWriter) -> None:
        size = max(1, self.backend.batch_size)
        pending = [plan.pending[i] for i in self.backend.batch_order([work.request for work in plan.pending])]
        batches = [pending[i : i + size] for i in range(0, len(pending), size)]
        # Sending requests takes a core, and the server the other (a local one, or its client library): made
        # meanwhile, the thumbnails would slow the sending. They go on once the loop only waits for answers:
        # when half of the last requests in flight are answered, the others were sent long ago.
        tail = self.backend.concurrency * size // 2
        unanswered = len(pending)
        if unanswered > tail:
            thumbnails.pause()

        def record(works: list[_Work], responses: list[ModelResponse]) -> None:
            nonlocal unanswered
            unanswered -= len(works)
            if unanswered <= tail:
                thumbnails.resume()
            for work, response in zip(works, responses, strict=True):
                plan.counts[work.bench.name].requested += 1
                if response.ok and self.cache is not None:
                    self.cache.put(work.fingerprint, response, self._model_fingerprint)
            self._finish_all(works, responses, log, existing, advance=True)

        # The answers that land in one turn of the loop are read and recorded together (see `landing`).
        landing: Landing[_Work] = Landing(record)
        # Cache commits go to a writer thread meanwhile: each would stall the loop sending requests.
        with self.cache.writing_behind() if self.cache is not None else contextlib.nullcontext():
            try:
                await self.executor.execute([[work.request for work in batch] for batch in batches],
                                            lambda number, responses: landing.add(batches[number], responses))
            finally:
                landing.flush()  # answers of the last turn, or delivered before a failure: recorded too

    def _finish_all(self, works: list[_Work], responses: list[ModelResponse], log: RunLog,
                    existing: dict[Key, SampleRecord], *, advance: bool = False) -> None:
        """Record each response with its answer; each benchmark's answers are read in one call."""
        answers: list[ReadAnswer] = [(None, None)] * len(works)
        for bench in {work.bench: None for work in works}:
            rows = [i for i, work in enumerate(works) if work.bench is bench]
            texts = [responses[i].text if responses[i].ok else None for i in rows]
            read = answers_of(bench, [works[i].sample for i in rows], texts, [works[i].round for i in rows],
                              keep_reasoning=self.keep_reasoning)
            for i, answer in zip(rows, read, strict=True):
                answers[i] = answer
        for work, response, answer in zip(works, responses, answers, strict=True):
            self._finish(work, response, answer, log, existing)
            if advance:
                self.progress.advance(failed=not response.ok)

    def _finish(self, work: _Work, response: ModelResponse, answer: ReadAnswer, log: RunLog,
                existing: dict[Key, SampleRecord]) -> None:
        sample = work.sample
        if not response.ok:
            # Kept in the record too; the log puts the failures of a long run in one place, in order.
            logger.debug("%s %s round %d failed: %s", work.bench.name, sample.id, work.round, response.error)
        extraction, correct = answer
        # Validated: pydantic-core takes the models made here as they are (no copies), and is twice as fast as
        # model_construct's Python loop over the fields (one record per answer, on the event loop that is
        # sending the next requests).
        record = SampleRecord(
            schema_version=SCHEMA_VERSION,
            benchmark=work.bench.name,
            sample_id=sample.id,
            round=work.round,
            fingerprint=work.fingerprint,
            prompt="\n".join(message.text() for message in work.request.messages),
            response=response,
            extraction=extraction,
            target=sample.answer,
            correct=correct,
            metadata=work.bench.record_metadata(sample),
            images=self.images.refs(sample.images),
        )
        span = log.append(record)
        existing[record.key] = record
        self._fresh[record.key] = (record, span)

    async def _score_all(
        self, runs: Sequence[BenchmarkRun], existing: dict[Key, SampleRecord], plan: _Plan,
        manifest: ManifestStore,
    ) -> RunResults:
        previous = self.folder.read_results() if self.folder.has_results() else None
        results = RunResults(
            model=manifest.manifest.model.label(),
            model_fingerprint=manifest.manifest.model_fingerprint,
            executor=self.executor.describe(),
            executor_stats=self.executor.stats(),
            notes=caveats(manifest.manifest),
            labels=caveat_labels(manifest.manifest),
        )
        scored: list[SampleRecord] = []
        ran = {run.benchmark.name for run in runs}
        for run in runs:
            bench, samples = run.benchmark, run.dataset.samples
            by_id = {sample.id: sample for sample in samples}
            records: list[SampleRecord] = []
            stored: list[tuple[int, Sample]] = []  # records to read again, and their samples
            stale = 0
            for sample in samples:
                for round in range(bench.options.rounds):
                    key = (bench.name, sample.id, round)
                    record = existing.get(key)
                    if record is None:
                        continue
                    if record.fingerprint != plan.fingerprints[key]:
                        stale += 1  # made with another model, prompt or data: never scored
                        continue
                    if key not in self._fresh:
                        stored.append((len(records), sample))
                        record = self._with_images(record, sample)
                    records.append(record)
            again = read_answers(bench, [sample for _, sample in stored], [records[i] for i, _ in stored],
                                 keep_reasoning=self.keep_reasoning)
            for (i, _), record in zip(stored, again, strict=True):
                records[i] = record
            entry, final = await score_benchmark(
                run, records, by_id, self.judge, self.progress, plan.counts[bench.name], self.folder, stale
            )
            results.benchmarks[bench.name] = entry
            scored.extend(final)
        # Benchmarks of the folder this command did not ask about keep their results and final records.
        for dataset in manifest.manifest.datasets:
            if dataset.benchmark in ran:
                continue
            records = self.folder.records(dataset.benchmark)
            kept = previous.benchmarks.get(dataset.benchmark) if previous is not None else None
            if kept is not None or records:
                results.benchmarks[dataset.benchmark] = stored_entry(dataset, records, kept)
                scored.extend(records)
        self.folder.write_scored(scored, self._fresh)
        self.folder.write_results(results)
        judge = manifest.manifest.judge.label() if manifest.manifest.judge is not None else None
        # Only benchmarks that have an audit are read by it: the others' answers would be built for nothing.
        with_audit = audited_benchmarks({r.benchmark for r in scored})
        audited = [Answer.from_record(r) for r in scored if r.benchmark in with_audit]
        self.folder.write_judge_audit(judge_audit(audited, judge))
        return results

    def _with_images(self, record: SampleRecord, sample: Sample) -> SampleRecord:
        # Records logged by mmgauge 0.1 carry no image references; the report needs them.
        if record.images or not sample.images:
            return record
        return record.model_copy(update={"images": self.images.refs(sample.images)})


def group_by_image(pending: list[_Work]) -> list[_Work]:
    """`pending` with the requests that send the same (first) image next to each other, else in order.

    The backend encodes each image once and keeps the encodings in a bounded cache: requests for one image
    spread over a dataset larger than that cache (e.g. `q{i}` asking about image `i % 2500`) would encode it
    again for every request. Together, each distinct image is encoded once per run. Datasets whose questions
    about one image are already adjacent (MME's pairs, MMBench's circular rounds) keep their order.
    """
    rank: dict[object, int] = {}
    order = []
    for index, work in enumerate(pending):
        key: object = index  # a request without images keeps its place among its neighbours
        for message in work.request.messages:
            image = next((part.image for part in message.content if isinstance(part, ImagePart)), None)
            if image is not None:
                key = image.sha256()
                break
        order.append(rank.setdefault(key, len(rank)))
    return [pending[i] for i in sorted(range(len(pending)), key=order.__getitem__)]


def caveats(manifest: RunManifest) -> list[str]:
    """What every display of this run's numbers must say: built-in sample data, a baseline model."""
    notes = [f"{entry.benchmark}: built-in synthetic sample data ({entry.samples} questions generated by "
             "mmgauge), not the real benchmark; its scores are not comparable with published ones"
             for entry in manifest.datasets if entry.builtin_sample]
    caveat = manifest.backend.get("caveat")
    if isinstance(caveat, str) and caveat:
        notes.append(caveat)
    return notes


def caveat_labels(manifest: RunManifest) -> list[str]:
    """Short tags for the caveats, to mark the run wherever it is named (leaderboards, comparisons)."""
    labels = ["sample data"] if any(entry.builtin_sample for entry in manifest.datasets) else []
    label = manifest.backend.get("caveat_label")
    if not isinstance(label, str):
        # Manifests written before caveat labels: the embedded baseline's was the only caveat there was.
        label = "baseline" if manifest.backend.get("caveat") else ""
    return labels + ([label] if label else [])


def answers_of(
    bench: AnyBenchmark, samples: list[Sample], texts: list[str | None], rounds: list[int], *,
    keep_reasoning: bool = False,
) -> list[ReadAnswer]:
    """The answer the benchmark's rules read in each text (None for a failed request) and whether it is right;
    the rules read all the texts in one call (`Benchmark.extract_many`)."""
    read = [i for i, text in enumerate(texts) if text is not None]
    stripped = [(texts[i] or "", False) if keep_reasoning else strip_reasoning(texts[i] or "") for i in read]
    found = bench.extract_many([samples[i] for i in read], [text for text, _ in stripped],
                               [rounds[i] for i in read])
    answers: list[ReadAnswer] = [(None, None)] * len(texts)
    for i, (_, removed), extraction in zip(read, stripped, found, strict=True):
        if removed:
            extraction = extraction.model_copy(update={"reasoning_removed": True})
        answer = samples[i].answer
        answers[i] = (extraction, None if answer is None else
                      extraction.answer is not None and extraction.answer == answer)
    return answers


def read_answers(
    bench: AnyBenchmark, samples: list[Sample], records: list[SampleRecord], *, keep_reasoning: bool = False
) -> list[SampleRecord]:
    """`records` with their answers read again from the raw text by the benchmark's rules, correctness from
    the data.

    Whatever extraction, verdict and sample fields were stored are ignored: they are recomputed from what the
    model said and from the dataset. A reasoning model's closed thinking block is removed before the rules
    read the text (unless `keep_reasoning`); the extraction says so, and the record keeps the raw text.
    """
    texts = [record.response.text if record.response.ok else None for record in records]
    answers = answers_of(bench, samples, texts, [record.round for record in records],
                         keep_reasoning=keep_reasoning)
    out: list[SampleRecord] = []
    for sample, record, (extraction, correct) in zip(samples, records, answers, strict=True):
        metadata = bench.record_metadata(sample)
        if (extraction == record.extraction and correct == record.correct and record.target == sample.answer
                and metadata == record.metadata):
            out.append(record)
            continue
        update = {"extraction": extraction, "correct": correct, "target": sample.answer, "metadata": metadata}
        out.append(record.model_copy(update=update))
    return out
