"""POPE as an mmgauge benchmark: load either layout, ask, read answers as POPE's evaluate.py does, score."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final, Literal

from mmgauge.benchmarks.base import YES_NO, Benchmark, BenchmarkOptions, Dataset
from mmgauge.benchmarks.baseline_answers import Baseline, yes_no_baselines
from mmgauge.benchmarks.pope.data import fingerprint, load_questions
from mmgauge.benchmarks.pope.reading import read_answer
from mmgauge.benchmarks.pope.result import PopeResult, PopeScores
from mmgauge.benchmarks.pope.sample import write_sample
from mmgauge.benchmarks.pope.scoring import PopeItem, score_pope
from mmgauge.core.baselines import PERCENT, Numbers
from mmgauge.core.types import AnswerChoice, Extraction, Message, Sample, SampleRecord

#: What lmms-eval's `pope` task appends to each question (LLaVA's POPE prompt).
LMMS_EVAL_SUFFIX: Final = "\nAnswer the question using a single word or phrase."


class PopeOptions(BenchmarkOptions):
    parser: Literal["official", "vlmevalkit"] = "official"
    """How answers are read: `official` (POPE's evaluate.py: "no"/"No"/"not" in the first sentence, else yes)
    or `vlmevalkit` (VLMEvalKit's YOrN_Extraction: yes xor no as words, else unknown)."""
    prompt: Literal["plain", "lmms-eval"] = "plain"
    """`plain`: the question alone (POPE, VLMEvalKit); `lmms-eval`: plus "Answer the question using a single
    word or phrase." on a new line."""


class PopeBenchmark(Benchmark[PopeOptions, PopeResult]):
    name: ClassVar[str] = "pope"
    description: ClassVar[str] = ("POPE: object hallucination yes/no in random, popular and adversarial "
                                  "splits; accuracy, precision, recall, F1, yes-ratio")
    options_type: ClassVar[type[BenchmarkOptions]] = PopeOptions
    result_type: ClassVar[type[PopeResult]] = PopeResult
    title: ClassVar[str] = "POPE"
    vlmevalkit_names: ClassVar[tuple[str, ...]] = ("POPE",)
    tidy_rows: ClassVar[str | None] = "mmgauge.benchmarks.pope.tidy:pope_rows"
    report_section: ClassVar[str | None] = "mmgauge.benchmarks.pope.report:SECTION"
    comparer: ClassVar[str | None] = "mmgauge.benchmarks.pope.compare:compare_pope"
    outcomes_builder: ClassVar[str | None] = "mmgauge.benchmarks.pope.outcomes:from_answers"
    # The leaderboard's accuracy column is the comparison's overall row where that is the same number (every
    # question in one split; `compare.py`).
    significance_measures: ClassVar[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]] = (
        ("POPE accuracy %", (("accuracy", "overall"),)),
    )
    score_command: ClassVar[str | None] = "mmgauge.benchmarks.pope.command:score_command"
    in_default_run: ClassVar[bool] = True

    def __init__(self, options: PopeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)

    def load(self, data: Path) -> Dataset:
        samples = [
            Sample(id=q.sample_id, benchmark=self.name, question=q.question, answer=q.truth, images=[q.image],
                   metadata={"splits": list(q.splits), "image": q.image_key, "question": q.question})
            for q in load_questions(data)
        ]
        return Dataset(benchmark=self.name, source=str(data), fingerprint=fingerprint(data), samples=samples)

    def sample_data(self, directory: Path) -> Path:
        return write_sample(directory)

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        suffix = LMMS_EVAL_SUFFIX if self.options.prompt == "lmms-eval" else ""
        return [Message.user(sample.question.strip() + suffix if suffix else sample.question, sample.images)]

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        return list(YES_NO)  # POPE's reading takes "Yes" as yes and "No" as no (a test holds it)

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        return read_answer(text, self.options.parser)

    def score(self, records: Sequence[SampleRecord]) -> PopeResult:
        answered = [r for r in records if r.response.ok]
        return score_pope([item_of(r) for r in answered], reader=self.options.parser,
                          failed=len(records) - len(answered), seed=self.options.seed)

    def summary(self, result: PopeResult) -> list[tuple[str, str]]:
        rows = [("POPE reader", result.reader)]
        if result.overall is None:
            return [*rows, ("POPE", "nothing answered yet")]
        rows += [(f"POPE {name}", scores_text(scores)) for name, scores in result.named().items()]
        if result.overall.unknown:
            rows.append(("POPE unreadable answers", f"{result.overall.unknown} (counted wrong, not yes)"))
        if result.failed:
            rows.append(("POPE failed requests", f"{result.failed} (not scored)"))
        rows.extend(("POPE note", note) for note in result.notes)
        return rows

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        return dict(sample.metadata)

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        return yes_no_baselines()

    def headline_numbers(self, result: PopeResult) -> Numbers:
        named = result.named()
        headline: dict[str, float] = {}
        nonlinear: list[str] = ["f1"]
        # Per split, as the report's charts draw them (`report.py`).
        accuracy: dict[str, float] = {}
        f1: dict[str, float] = {}
        for name, scores in named.items():
            # The accuracy, beside the summary's row of the split.
            headline[f"POPE {name}"] = accuracy[name] = 100 * scores.accuracy.value
            nonlinear.append(f"POPE {name} F1")
            if scores.f1 is not None:
                headline[f"POPE {name} F1"] = f1[name] = 100 * scores.f1.value
        return Numbers(headline=headline, units=dict.fromkeys(headline, PERCENT), nonlinear=nonlinear,
                       breakdowns={"accuracy": accuracy, "f1": f1})


def item_of(record: SampleRecord) -> PopeItem:
    splits = record.metadata.get("splits") or []
    answer = record.extraction.answer if record.extraction is not None else None
    return PopeItem(sample_id=record.sample_id, splits=tuple(str(s) for s in splits),
                    truth=str(record.target or "").lower(), answer=answer,
                    image=str(record.metadata.get("image") or record.sample_id))


def scores_text(scores: PopeScores) -> str:
    """`acc 85.00% (95% CI ..), F1 84.21 (95% CI ..), yes 45.0%` for the summary table (precision and
    recall are in the result)."""
    text = f"acc {100 * scores.accuracy.value:.2f}% ({scores.accuracy.ci.text(100)})"
    f1 = scores.f1
    text += ", F1 -" if f1 is None else f", F1 {100 * f1.value:.2f} ({f1.ci.text(100).split(', n=')[0]})"
    return text + f", yes {100 * scores.yes_ratio.value:.1f}%"

#: What the registry finds when the installed metadata predates this benchmark (benchmarks/registry.py).
BENCHMARK = PopeBenchmark
