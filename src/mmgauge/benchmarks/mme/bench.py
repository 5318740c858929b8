"""MME (Fu et al., 2023): two yes/no questions per image, 14 subtasks, scored as the official tool does."""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

from mmgauge.benchmarks.base import YES_NO, Benchmark, BenchmarkOptions, Dataset
from mmgauge.benchmarks.baseline_answers import Baseline, yes_no_baselines
from mmgauge.benchmarks.judge_audit import YESNO_UNREADABLE
from mmgauge.benchmarks.mme.data import is_hf_table, load_questions
from mmgauge.benchmarks.mme.official import records_to_items
from mmgauge.benchmarks.mme.prompts import TABLE as PROMPTS
from mmgauge.benchmarks.mme.release import MMEQuestion, subtask_folders
from mmgauge.benchmarks.mme.sample import write_sample
from mmgauge.benchmarks.mme.scoring import (
    PERCEPTION,
    MMEResult,
    Total,
    answer_bias,
    overall_yes_ratio,
    read_yes_or_no,
    score_mme,
)
from mmgauge.benchmarks.presets import PresetTable, PromptFields
from mmgauge.core.baselines import Numbers
from mmgauge.core.errors import UserError
from mmgauge.core.types import AnswerChoice, Extraction, Message, Sample, SampleRecord
from mmgauge.datasources.tables import fingerprint_files, table_files
from mmgauge.extraction.judge import Judge, JudgeUnavailable
from mmgauge.extraction.methods import JUDGE, JUDGE_FAILED, JUDGE_REFUSED
from mmgauge.extraction.reasoning import marked_like, text_read
from mmgauge.extraction.yesno import PARSERS, parse_words, parse_yes_no, parse_yes_no_many

JUDGE_TRIES: Final = 3
JUDGE_PROMPT: Final = (
    "A model was asked a yes/no question about an image.\n"
    "Question: {question}\n"
    "Model's answer: {answer}\n"
    "Does the model's answer mean yes or no? Reply with one word: yes or no."
)
#: The methods of the answers no rule could read: the judge's, and the yes/no reader's "neither" (the `words`
#: parser's; the `official` parser has no judge step: its "other" answers are wrong by the tool's definition).
RULE_UNRESOLVED: Final = frozenset({JUDGE, YESNO_UNREADABLE})
_RETRY_NOTE: Final = "\n(Try {n} of {total}: your previous reply could not be read. Reply only yes or no.)"


def sample_id(question: MMEQuestion) -> str:
    return f"{question.subtask}/{question.image}/q{question.index}"


class MMEOptions(BenchmarkOptions):
    parser: str | None = None
    """How answers are read: `official` (the official tool's parser, the default) or `words`."""
    prompt: str | None = None
    """The prompt wording: paper (default), vlmevalkit, lmms-eval, or a template file (see `mmgauge list`)."""


class MMEBenchmark(Benchmark[MMEOptions, MMEResult]):
    name: ClassVar[str] = "mme"
    description: ClassVar[str] = "MME: 14 perception/cognition subtasks, yes/no pairs, acc + acc+ per subtask"
    options_type: ClassVar[type[BenchmarkOptions]] = MMEOptions
    result_type: ClassVar[type[MMEResult]] = MMEResult
    prompt_presets: ClassVar[PresetTable | None] = PROMPTS
    title: ClassVar[str] = "MME"
    vlmevalkit_names: ClassVar[tuple[str, ...]] = ("MME",)
    report_section: ClassVar[str | None] = "mmgauge.benchmarks.mme.report:SECTION"
    comparer: ClassVar[str | None] = "mmgauge.benchmarks.mme.compare:compare_mme"
    comparison_notes: ClassVar[str | None] = "mmgauge.benchmarks.mme.compare:notes"
    outcomes_builder: ClassVar[str | None] = "mmgauge.benchmarks.mme.outcomes:from_answers"
    answers_reader: ClassVar[str | None] = "mmgauge.benchmarks.mme.outcomes:read_answers"
    audit_rules: ClassVar[str | None] = "mmgauge.benchmarks.mme.audit:audit"
    record_judge: ClassVar[str | None] = "mmgauge.benchmarks.mme.audit:judge_record"
    rule_unresolved: ClassVar[frozenset[str]] = RULE_UNRESOLVED
    tidy_rows: ClassVar[str | None] = "mmgauge.benchmarks.mme.tidy:mme_rows"
    significance_measures: ClassVar[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]] = (
        ("MME perception", (("score", "perception"),)), ("MME cognition", (("score", "cognition"),)))
    library_functions: ClassVar[tuple[str, ...]] = ("mmgauge.benchmarks.mme.answers:score_mme",)
    score_command: ClassVar[str | None] = "mmgauge.benchmarks.mme.command:score_command"
    export_command: ClassVar[str | None] = "mmgauge.benchmarks.mme.command:export_command"
    in_default_run: ClassVar[bool] = True
    display_order: ClassVar[int] = 0

    def __init__(self, options: MMEOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        #: What loading left out on purpose (a release's non-subtask folders): shown in the summary.
        self.load_notes: list[str] = []
        self.parser = self.options.parser or "official"
        if self.parser not in PARSERS:
            raise UserError(f"unknown MME parser '{self.parser}'; choose one of: {', '.join(PARSERS)}",
                            field="--parser")
        self.prompt = PROMPTS.resolve(self.options.prompt)

    def load(self, data: Path) -> Dataset:
        questions = load_questions(data)
        self.load_notes = []
        if data.is_dir() and not is_hf_table(data):
            _, others = subtask_folders(data)
            if others:
                self.load_notes.append(f"not read (not MME subtask folders): {', '.join(others)}")
        samples = [
            Sample(
                id=sample_id(q),
                benchmark=self.name,
                question=q.question,
                answer=q.truth,
                images=[q.image_ref] if q.image_ref is not None else [],
                metadata={
                    "subtask": q.subtask,
                    "category": "perception" if q.subtask in PERCEPTION else "cognition",
                    "image": q.image,
                    "index": q.index,
                    "order": q.order,
                    "truth": q.truth,
                    "question": q.question,
                },
            )
            for q in questions
        ]
        seen: set[str] = set()
        for sample in samples:
            if sample.id in seen:
                message = f"two questions share the id '{sample.id}' (an image listed twice?)"
                raise UserError(message, file=str(data))
            seen.add(sample.id)
        return Dataset(benchmark=self.name, source=str(data), fingerprint=_fingerprint(data), samples=samples)

    def sample_data(self, directory: Path) -> Path:
        return write_sample(directory)

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        # The question already ends with "Please answer yes or no."; the paper's protocol adds nothing.
        return self.prompt(PromptFields(sample.question)).messages(sample.images)

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        return list(YES_NO)

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        return parse_yes_no(text, self.parser)

    def extract_many(self, samples: Sequence[Sample], texts: Sequence[str], rounds: Sequence[int]
                     ) -> list[Extraction]:
        return parse_yes_no_many(texts, self.parser)

    async def resolve(
        self, records: Sequence[SampleRecord], samples: dict[str, Sample], judge: Judge | None
    ) -> list[SampleRecord]:
        """Send answers the `words` parser could not read to the judge; `official` answers are final."""
        resolved: list[SampleRecord] = []
        for record in records:
            extraction = record.extraction
            unknown = extraction is not None and extraction.method == "words-unknown"
            if judge is None or not unknown or not record.response.ok:
                resolved.append(record)
                continue
            question = str(record.metadata.get("question", record.prompt))
            decided = await ask_judge(judge, question, text_read(record.response.text or "", extraction))
            decided = marked_like(decided, extraction)
            answer = decided.answer
            correct = answer is not None and answer == record.target
            resolved.append(record.model_copy(update={"extraction": decided, "correct": correct}))
        return resolved

    def score(self, records: Sequence[SampleRecord]) -> MMEResult:
        return score_mme(records_to_items(records, self.parser), parser=self.parser, seed=self.options.seed)

    def summary(self, result: MMEResult) -> list[tuple[str, str]]:
        rows = [("MME parser", result.parser)]
        rows.append(("MME perception", result.perception.text()))
        rows.append(("MME cognition", result.cognition.text()))
        ratio = overall_yes_ratio(result)
        read = sum(read_yes_or_no(s) for s in result.subtasks.values())
        if ratio is not None:
            rows.append(("MME yes-ratio", f"{100 * ratio:.1f}% yes among {read} answers read as yes/no "
                                          "(truth: 50%)"))
        if answer_bias(ratio):
            word = "yes" if (ratio or 0) > 0.5 else "no"
            rows.append(("MME warning", f"answer bias: mostly '{word}'; MME pairs each image's yes with a "
                                        "no, so acc stays near 50 while acc+ falls to 0"))
        for label, total in (("perception", result.perception), ("cognition", result.cognition)):
            if total.partial:
                rows.append((f"MME {label} partial", _partial_text(total)))
        if result.failed:
            rows.append(("MME failed requests", f"{result.failed} (not scored)"))
        if result.other:
            rows.append(("MME unreadable answers", f"{result.other} (counted wrong)"))
        rows.extend(("MME note", note) for note in self.load_notes)
        return rows

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        return dict(sample.metadata)

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        return yes_no_baselines()

    def baseline_unit(self, record: SampleRecord) -> Hashable:
        # acc+ needs both questions of an image right: chance draws them apart, but scores them together.
        return (record.metadata.get("subtask"), record.metadata.get("image"), record.round)

    def headline_numbers(self, result: MMEResult) -> Numbers:
        # A total none of whose subtasks was answered has no number to set a baseline beside.
        totals = {"MME perception": result.perception, "MME cognition": result.cognition}
        return Numbers(
            headline={label: total.score for label, total in totals.items() if total.scored},
            breakdowns={"acc": {name: s.acc for name, s in result.subtasks.items()},
                        "acc_plus": {name: s.acc_plus for name, s in result.subtasks.items()}},
        )


async def ask_judge(judge: Judge, question: str, answer: str) -> Extraction:
    prompt = JUDGE_PROMPT.format(question=question, answer=answer)
    reply: str | None = None
    for attempt in range(1, JUDGE_TRIES + 1):
        # A changed prompt per try: the judge is greedy and cached, so asking the same text again is useless.
        text = prompt if attempt == 1 else prompt + _RETRY_NOTE.format(n=attempt, total=JUDGE_TRIES)
        try:
            reply = await judge.ask(text)
        except JudgeUnavailable as exc:
            refused = JUDGE_REFUSED if exc.permanent else ""
            return Extraction(answer=None, method=JUDGE_FAILED, detail=f"{refused}judge unavailable: {exc}")
        read = parse_words(reply)
        if read.answer is not None:
            return Extraction(answer=read.answer, method="judge", judge_reply=reply, detail=f"try {attempt}")
    return Extraction(answer=None, method="words-unknown", judge_reply=reply,
                      detail=f"the judge gave no readable yes/no in {JUDGE_TRIES} tries")


def _partial_text(total: Total) -> str:
    parts = []
    if total.missing:
        parts.append("missing " + ", ".join(total.missing))
    if total.incomplete:
        parts.append("incomplete " + ", ".join(total.incomplete))
    return "; ".join(parts)


def _fingerprint(data: Path) -> str:
    """sha256 over every file the questions come from (names and bytes), in a fixed order."""
    digest = hashlib.sha256()
    if data.is_file() and is_hf_table(data):  # a shard stands for its split: hash every shard
        return fingerprint_files(table_files(data))
    files = sorted(p for p in data.rglob("*") if p.is_file()) if data.is_dir() else [data]
    for path in files:
        digest.update(path.relative_to(data).as_posix().encode() if data.is_dir() else path.name.encode())
        digest.update(b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()

#: What the registry finds when the installed metadata predates this benchmark (benchmarks/registry.py).
BENCHMARK = MMEBenchmark
