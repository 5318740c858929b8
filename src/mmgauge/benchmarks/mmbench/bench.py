"""MMBench (Liu et al., 2023) with CircularEval; MMBench-CN and CCBench are the same benchmark on other files.

Sample ids are the TSV index of each circular copy (i + k * 1,000,000), so they are stable across runs.
Records carry the group, copy, labels and answer letter, so scoring needs nothing but the records.

A file that holds circular copies is run row by row, as VLMEvalKit runs it, and a question group is right when
every copy the file holds is right (the rule `score mmbench` applies): the legacy MMBench-dev 20230712 file
holds only 3 copies of 53 four-option questions. With the vlmevalkit prompt an option whose text pandas reads
as missing ("None", "NA", ...) is left out, as VLMEvalKit leaves it out; `literal_options` keeps it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.base import Benchmark, BenchmarkOptions, Dataset, option_choices
from mmgauge.benchmarks.baseline_answers import Baseline, choice_baselines
from mmgauge.benchmarks.baseline_scores import METHOD as BASELINE_METHOD
from mmgauge.benchmarks.mmbench.circular import circular_table
from mmgauge.benchmarks.mmbench.prompts import TABLE as PROMPTS
from mmgauge.benchmarks.mmbench.prompts import detect_language, language
from mmgauge.benchmarks.mmbench.resolve import Copy, resolve_copies, was_not_judged
from mmgauge.benchmarks.mmbench.sample import write_sample
from mmgauge.benchmarks.mmbench.scoring import CircularGroups, MMBenchResult, circular_groups, score_groups
from mmgauge.benchmarks.mmbench.scoring_columns import Coded
from mmgauge.benchmarks.mmbench.submission import Submission, write_submission
from mmgauge.benchmarks.mmbench.tsv import Table, image_refs, load_table
from mmgauge.benchmarks.mmbench.vlmevalkit import group_sizes
from mmgauge.benchmarks.presets import VLMEVALKIT, PresetTable, PromptFields
from mmgauge.core.baselines import PERCENT, Numbers
from mmgauge.core.types import AnswerChoice, Extraction, Message, Sample, SampleRecord
from mmgauge.datasources.tables import fingerprint_files, is_table_source, table_files
from mmgauge.extraction.choice import ChoiceMatcher, match_choice
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import FAILURE, JUDGE, RANDOM, UNRESOLVED
from mmgauge.extraction.reasoning import text_read

#: The sample metadata that records keep (see `record_metadata`).
RECORD_FIELDS = ("index", "g_index", "copy", "n_copies", "n_options", "category", "l2-category", "split",
                 "answer")


def load_circular(data: Path, *, need_image: bool = True, drop_missing: bool = False) -> Table:
    """The checked table of a data file with its circular copies, those it holds (a group may hold fewer
    than its options) or else made; `drop_missing` leaves out options pandas reads as missing (see
    `circular_table`)."""
    return circular_table(load_table(data, need_image=need_image), complete=False, drop_missing=drop_missing)


class MMBenchOptions(BenchmarkOptions):
    prompt_language: str | None = None
    """The prompt's language (en or cn); by default detected from the questions."""
    random_fallback: bool = False
    """Give answers neither the rules nor the judge could read a seeded random letter (off: counted wrong)."""
    prompt: str | None = None
    """The prompt wording: paper (default), vlmevalkit, lmms-eval, or a template file (see `mmgauge list`)."""
    literal_options: bool = False
    """With the vlmevalkit prompt, keep options reading None, NA, null, ... as text (VLMEvalKit, reading the
    TSV with pandas, leaves them out; so does the vlmevalkit prompt by default). Other prompts keep them."""


class MMBenchBenchmark(Benchmark[MMBenchOptions, MMBenchResult]):
    name: ClassVar[str] = "mmbench"
    description: ClassVar[str] = (
        "MMBench / MMBench-CN / CCBench (or any TSV of that form): single choice with CircularEval"
    )
    options_type: ClassVar[type[BenchmarkOptions]] = MMBenchOptions
    result_type: ClassVar[type[MMBenchResult]] = MMBenchResult
    prompt_presets: ClassVar[PresetTable | None] = PROMPTS
    title: ClassVar[str] = "MMBench"
    vlmevalkit_names: ClassVar[tuple[str, ...]] = (
        "MMBench_DEV_EN", "MMBench_TEST_EN", "MMBench_DEV_CN", "MMBench_TEST_CN", "MMBench", "MMBench_CN",
        "CCBench", "MMBench_DEV_EN_V11", "MMBench_TEST_EN_V11", "MMBench_DEV_CN_V11", "MMBench_TEST_CN_V11",
        "MMBench_V11", "MMBench_CN_V11",
    )
    report_section: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.report:SECTION"
    comparer: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.compare:compare_mmbench"
    outcomes_builder: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.outcomes:from_answers"
    answers_reader: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.outcomes:from_predictions_file"
    audit_rules: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.audit:audit"
    tidy_rows: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.tidy:rows"
    score_command: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.command:score_command"
    export_command: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.command:export_command"
    library_functions: ClassVar[tuple[str, ...]] = (
        "mmgauge.benchmarks.mmbench.scores:score_mmbench",
        "mmgauge.benchmarks.mmbench.scores:score_mmbench_async",
    )
    sample_judge: ClassVar[str | None] = "mmgauge.benchmarks.mmbench.audit:judge_sample"
    #: The judge's answers, the unread (wrong) and a seeded random letter: what no rule could read.
    rule_unresolved: ClassVar[frozenset[str]] = frozenset({JUDGE, UNRESOLVED, RANDOM})
    significance_measures: ClassVar[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]] = (
        ("MMBench circular %", (("circular", "overall"),)),
        ("MMBench vanilla %", (("vanilla", "overall"),)),
    )
    in_default_run: ClassVar[bool] = True
    display_order: ClassVar[int] = 1

    def __init__(self, options: MMBenchOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.prompt = PROMPTS.resolve(self.options.prompt)
        #: Read options as VLMEvalKit's pandas reads them, only where its prompt is asked for.
        self.drop_missing = self.prompt.name == VLMEVALKIT and not self.options.literal_options
        #: Reads a run's answers as they arrive (a few at a time, the same short answers again and again).
        self.matcher = ChoiceMatcher()

    def load(self, data: Path) -> Dataset:
        table = load_circular(data, drop_missing=self.drop_missing)
        images = image_refs(table, data.parent)
        questions = table.text("question").tolist()
        hints = table.text("hint").tolist()
        wanted = self.options.prompt_language
        firsts = table.text("question")[table.copy == 0].tolist()
        lang = language(wanted) if wanted else detect_language(firsts)
        # Whole columns as Python lists once: reading numpy arrays element by element makes a numpy scalar
        # per cell, which cost more than the rest of building a sample.
        labels = {column: table.text(column).tolist() for column in ("category", "l2-category", "split")}
        copies = group_sizes(table.group).tolist()
        indexes, groups, copy_numbers = table.index.tolist(), table.group.tolist(), table.copy.tolist()
        answers, lines, letters = table.answer.tolist(), table.line.tolist(), table.letters
        samples = []
        for row, cells in enumerate(table.options.tolist()):
            # The offered options: the first n, or with some left out (drop_missing) the others, gaps and all.
            options = {letter: text for letter, text in zip(letters, cells, strict=True) if text != ""}
            answer = str(answers[row]) or None
            samples.append(Sample(
                id=str(indexes[row]), benchmark=self.name, question=str(questions[row]), options=options,
                answer=answer, images=[images[row]],
                metadata={
                    "index": indexes[row], "g_index": groups[row], "copy": copy_numbers[row],
                    "n_copies": copies[row], "n_options": len(options), "hint": str(hints[row]),
                    "category": str(labels["category"][row]), "l2-category": str(labels["l2-category"][row]),
                    "split": str(labels["split"][row]), "answer": answer or "", "language": lang,
                    "line": lines[row],
                },
            ))
        return Dataset(benchmark=self.name, source=str(data), fingerprint=_fingerprint(data), samples=samples)

    def sample_data(self, directory: Path) -> Path:
        return write_sample(directory)

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        lang = self.options.prompt_language or str(sample.metadata.get("language", "en"))
        fields = PromptFields(sample.question, sample.options, str(sample.metadata.get("hint", "")), lang)
        return self.prompt(fields).messages(sample.images)

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        return option_choices(sample.options)

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        return match_choice(text, sample.options)

    def extract_many(self, samples: Sequence[Sample], texts: Sequence[str], rounds: Sequence[int]
                     ) -> list[Extraction]:
        return self.matcher.match(texts, [sample.options for sample in samples])

    async def resolve(
        self, records: Sequence[SampleRecord], samples: dict[str, Sample], judge: Judge | None
    ) -> list[SampleRecord]:
        """Judge only what CircularEval needs (see `resolve.py`); records of failed requests stay as is."""
        copies: list[Copy] = []
        for key, record in enumerate(records):
            sample = samples.get(record.sample_id)
            if sample is None:
                continue
            failed = record.extraction is None or not record.response.ok
            extraction = Extraction(answer=None, method=FAILURE) if failed else record.extraction
            assert extraction is not None
            meta = record.metadata
            copies.append(Copy(
                key=key, sample_id=record.sample_id, group=int(meta["g_index"]), copy=int(meta["copy"]),
                answer=sample.answer, question=_judge_question(sample), options=dict(sample.options),
                text=text_read(record.response.text or "", record.extraction), extraction=extraction,
            ))
        changed = await resolve_copies(copies, judge, random_fallback=self.options.random_fallback,
                                       seed=self.options.seed)
        out = list(records)
        for key, extraction in changed.items():
            record = out[key]
            target = str(record.metadata.get("answer", "")) or record.target
            correct = None if extraction.answer is None else extraction.answer == target
            out[key] = record.model_copy(update={"extraction": extraction, "correct": correct})
        return out

    def score(self, records: Sequence[SampleRecord]) -> MMBenchResult:
        """CircularEval over round 0; a group with a failed request is left unscored until it is retried."""
        rows = _Rows(records)
        chosen = [records[i] for i in rows.chosen]
        extractions = [record.extraction for record in chosen]
        not_judged = np.array([ext is not None and was_not_judged(ext) for ext in extractions], dtype=bool)
        judged = bool(not_judged.any()) or any(
            ext is not None and (ext.method == JUDGE or ext.judge_reply is not None) for ext in extractions)
        failed = np.array([not record.response.ok for record in chosen], dtype=bool)
        groups = rows.groups(request_failed=failed)
        return rows.score(groups, extracted=[None if ext is None else ext.answer for ext in extractions],
                          methods=[FAILURE if ext is None else ext.method for ext in extractions],
                          judged=judged, not_judged=not_judged)

    def baseline_numbers(
        self, records: Sequence[SampleRecord], answer_sets: Sequence[Sequence[str]]
    ) -> list[Numbers]:
        # What `score` gives the records answered so (answers that never fail, read by no judge), from the
        # columns and groups that do not depend on the answers, made once for every set.
        rows = _Rows(records)
        methods = Coded(np.zeros(len(rows.chosen), dtype=np.int64), [BASELINE_METHOD])
        unfailed = np.zeros(len(rows.chosen), dtype=bool)
        groups = rows.groups(request_failed=unfailed)
        return [self.headline_numbers(rows.score(groups, extracted=[answers[i] for i in rows.chosen],
                                                 methods=methods, judged=False, not_judged=unfailed))
                for answers in answer_sets]

    def summary(self, result: MMBenchResult) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        if result.overall_pct is not None and result.overall_ci is not None:
            rows.append(("MMBench circular", f"{result.overall_pct:.2f}% ({result.overall_ci.text(100)})"))
            vanilla = f" ({result.vanilla_ci.text(100)})" if result.vanilla_ci is not None else ""
            rows.append(("MMBench vanilla", f"{result.vanilla_pct:.2f}%{vanilla}"))
            rows.extend((f"MMBench {name}", f"{pct:.2f}%") for name, pct in result.l2_pct.items())
        counts = ", ".join(f"{name} {count}" for name, count in sorted(result.extraction.items()))
        rows.append(("MMBench extraction", counts))
        rows.extend(("MMBench note", line) for line in result.headline())
        return rows

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        return {field: sample.metadata[field] for field in RECORD_FIELDS}

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        return choice_baselines(records, _options_of)

    def baseline_unit(self, record: SampleRecord) -> Hashable:
        # A group is right only if every circular copy is: chance draws copies apart, scored together.
        return (record.metadata.get("g_index"), record.round)

    def headline_numbers(self, result: MMBenchResult) -> Numbers:
        if result.overall is None or result.vanilla is None:
            return Numbers()
        # Unrounded (the `_pct` fields are rounded): chance averages these over answer sets.
        headline = {"MMBench circular": 100 * result.overall, "MMBench vanilla": 100 * result.vanilla}
        return Numbers(headline=headline, units=dict.fromkeys(headline, PERCENT), breakdowns={
            "l2": {name: 100 * value for name, value in result.l2.items()},
            "l3": {name: 100 * value for name, value in result.category.items()},
        })

    def write_outputs(
        self, records: Sequence[SampleRecord], dataset: Dataset, result: MMBenchResult, out_dir: Path
    ) -> list[Path]:
        """A test split (no answer key) gets the evaluation server's submission xlsx."""
        if not result.unanswered_groups:
            return []
        out = out_dir / "mmbench_submission.xlsx"
        self.write_submission(records, Path(dataset.source), out)
        return [out]

    def write_submission(self, records: Sequence[SampleRecord], data: Path, out: Path) -> Submission:
        """The xlsx for the evaluation server (test splits): every row of `data` with the raw answer."""
        table = load_circular(data, need_image=False, drop_missing=self.drop_missing)
        predictions = {int(record.metadata.get("index", record.sample_id)): record.response.text
                       for record in records
                       if record.response.ok and record.response.text is not None}
        return write_submission(table, predictions, out)


def _options_of(record: SampleRecord) -> int | None:
    """The options the record's question offered (0 in records written before the count was kept)."""
    return int(record.metadata.get("n_options", 0)) or None


def _judge_question(sample: Sample) -> str:
    hint = str(sample.metadata.get("hint", ""))
    return f"{hint}\n{sample.question}" if hint else sample.question


def _fingerprint(data: Path) -> str:
    """sha256 over the name and bytes of each file the table comes from (one file, or a split's shards)."""
    return fingerprint_files(table_files(data) if is_table_source(data) else [data])

#: What the registry finds when the installed metadata predates this benchmark (benchmarks/registry.py).
BENCHMARK = MMBenchBenchmark


class _Rows:
    """The round-0 records `score` reads (the latest record of each sample, in the order of their first
    appearance) and their columns that do not depend on the answers."""

    def __init__(self, records: Sequence[SampleRecord]) -> None:
        latest: dict[str, int] = {}
        for i, record in enumerate(records):
            if record.round == 0:
                latest[record.sample_id] = i
        self.chosen = list(latest.values())
        meta = [records[i].metadata for i in self.chosen]
        self.answers = [str(m.get("answer", "")) for m in meta]
        self.group = np.array([int(m["g_index"]) for m in meta], dtype=np.int64)
        self.copy = np.array([int(m["copy"]) for m in meta], dtype=np.int64)
        self.n_copies = np.array([int(m["n_copies"]) for m in meta], dtype=np.int64)
        self.has_answer = np.array([a != "" for a in self.answers], dtype=bool)
        # Labels as codes, so that every answer set scored reuses them.
        self.category = Coded.of([str(m.get("category", "")) for m in meta])
        self.l2 = Coded.of([str(m.get("l2-category", "")) for m in meta])
        self.split = Coded.of([str(m.get("split", "")) for m in meta])
        # Records written before n_options was kept have 0 there: no note, as nothing can be said.
        self.offered = np.array([int(m.get("n_options", 0)) for m in meta], dtype=np.int64)

    def groups(self, *, request_failed: npt.NDArray[np.bool_]) -> CircularGroups:
        """The question groups scored (those without a failed request), whatever the answers."""
        return circular_groups(group=self.group, copy=self.copy, n_copies=self.n_copies,
                               has_answer=self.has_answer, category=self.category, l2=self.l2,
                               split=self.split, request_failed=request_failed)

    def score(
        self, groups: CircularGroups, *, extracted: Sequence[str | None], methods: Sequence[str] | Coded,
        judged: bool, not_judged: npt.NDArray[np.bool_],
    ) -> MMBenchResult:
        correct = np.array([a != "" and e == a for e, a in zip(extracted, self.answers, strict=True)])
        result = score_groups(groups, correct=correct, method=methods, judged=judged, not_judged=not_judged)
        result.short_groups = int(np.count_nonzero((self.copy == 0) & (self.n_copies < self.offered)))
        return result
