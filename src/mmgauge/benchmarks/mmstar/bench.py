"""MMStar (Chen et al., 2024, "Are We on the Right Way for Evaluating Large Vision-Language Models?"): 1,500
single-choice questions, 6 core capabilities x 3 detailed axes, scored as VLMEvalKit scores it.

VLMEvalKit's `ImageMCQDataset.evaluate` runs MMStar through `mcq_vanilla_eval`: every question once (no
CircularEval), its answer read by exact matching of the option letter first (`can_infer`, through
`extract_answer_from_item`), and by the LLM judge for what exact matching cannot read; with no judge
(`exact_matching`) an unread answer is "Z", a miss. Here the rules are the shared single-choice matcher of
`mmgauge.extraction.choice` (the one MMBench uses), the judge is the one given with `--judge`, and with
`--judge none` unread answers count wrong and the result says how many. Known differences from VLMEvalKit's
`can_infer`: the shared matcher also reads "answer is X" where the letter is not among the last four words,
which VLMEvalKit's exact matching leaves unread (so with `--judge none` such an answer can be right here and
a miss there; with a judge, VLMEvalKit's judge decides it); VLMEvalKit reads four refusal phrases ("Cannot
determine the answer", ...) as "Z", a miss, where they are unread here (also a miss, but counted as unread,
and judged when a judge is given); and mmgauge removes a reasoning model's `<think>` block before reading
(`--keep-reasoning` keeps it).

Sample ids are the data's index; records keep index, category, l2-category and the answer key, so scoring
needs nothing but the records.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

from mmgauge.benchmarks.base import Benchmark, BenchmarkOptions, Dataset, option_choices
from mmgauge.benchmarks.baseline_answers import Baseline, choice_baselines
from mmgauge.benchmarks.mmstar.data import Question, fingerprint, load_questions
from mmgauge.benchmarks.mmstar.prompts import TABLE as PROMPTS
from mmgauge.benchmarks.mmstar.prompts import resolve_prompt
from mmgauge.benchmarks.mmstar.resolve import resolve_answer
from mmgauge.benchmarks.mmstar.result import MMStarResult, Outcome, score_outcomes
from mmgauge.benchmarks.mmstar.sample import write_sample
from mmgauge.benchmarks.presets import LMMS_EVAL, PresetTable, PromptFields
from mmgauge.core.baselines import PERCENT, Numbers
from mmgauge.core.types import AnswerChoice, Extraction, Message, Sample, SampleRecord
from mmgauge.extraction.choice import match_choice
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.reasoning import text_read

#: The sample metadata that records keep (see `record_metadata`).
RECORD_FIELDS: Final = ("index", "category", "l2-category", "answer", "n_options")
#: Judge questions in flight at once during the resolve pass.
JUDGE_CONCURRENCY: Final = 8


class MMStarOptions(BenchmarkOptions):
    prompt: str | None = None
    """The prompt wording: vlmevalkit (default), lmms-eval, or a template file (see `mmgauge list`)."""
    random_fallback: bool = False
    """Give answers neither the rules nor the judge could read a seeded random letter (off: counted wrong).
    VLMEvalKit draws one from the options and Z when its judge fails three times."""


class MMStarBenchmark(Benchmark[MMStarOptions, MMStarResult]):
    name: ClassVar[str] = "mmstar"
    description: ClassVar[str] = (
        "MMStar: 1,500 vision-indispensable single-choice questions, 6 capabilities x 3 axes "
        "(VLMEvalKit's scoring)"
    )
    options_type: ClassVar[type[BenchmarkOptions]] = MMStarOptions
    result_type: ClassVar[type[MMStarResult]] = MMStarResult
    prompt_presets: ClassVar[PresetTable | None] = PROMPTS
    title: ClassVar[str] = "MMStar"
    vlmevalkit_names: ClassVar[tuple[str, ...]] = ("MMStar",)
    tidy_rows: ClassVar[str | None] = "mmgauge.benchmarks.mmstar.tidy:mmstar_rows"
    report_section: ClassVar[str | None] = "mmgauge.benchmarks.mmstar.report:SECTION"
    # The leaderboard's column is the generic comparison's accuracy over the same answers (`compare_generic`).
    significance_measures: ClassVar[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]] = (
        ("MMStar overall %", (("accuracy", "overall"),)),
    )
    score_command: ClassVar[str | None] = "mmgauge.benchmarks.mmstar.command:score_command"
    in_default_run: ClassVar[bool] = True

    def __init__(self, options: MMStarOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.prompt = resolve_prompt(self.options.prompt)

    def load(self, data: Path) -> Dataset:
        file, questions = load_questions(data)
        return Dataset(benchmark=self.name, source=str(data), fingerprint=fingerprint(file),
                       samples=[self._sample(q) for q in questions])

    def _sample(self, q: Question) -> Sample:
        return Sample(
            id=str(q.index), benchmark=self.name, question=q.question, options=q.options, answer=q.answer,
            images=[q.image],
            metadata={"index": q.index, "category": q.category, "l2-category": q.l2_category,
                      "answer": q.answer or "", "hint": q.hint, "source_question": q.source_question,
                      "line": q.line, "n_options": len(q.options)},
        )

    def sample_data(self, directory: Path) -> Path:
        return write_sample(directory)

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        # lmms-eval sends the Hugging Face question as it is, options inline.
        question = (str(sample.metadata.get("source_question") or sample.question)
                    if self.prompt.name == LMMS_EVAL else sample.question)
        fields = PromptFields(question, sample.options, str(sample.metadata.get("hint", "")), "en")
        return self.prompt(fields).messages(sample.images)

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        return option_choices(sample.options)

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        # VLMEvalKit strips the prediction before matching (extract_answer_from_item).
        return match_choice(text.strip(), sample.options)

    async def resolve(
        self, records: Sequence[SampleRecord], samples: dict[str, Sample], judge: Judge | None
    ) -> list[SampleRecord]:
        """The judge reads what the rules left unread; what stays unread counts wrong (or gets a seeded random
        letter with `random_fallback`). Records of failed requests stay as they are."""
        gate = asyncio.Semaphore(JUDGE_CONCURRENCY)

        async def one(record: SampleRecord) -> SampleRecord:
            sample = samples.get(record.sample_id)
            text = record.response.text
            if sample is None or not record.response.ok or text is None or record.extraction is None:
                return record
            async with gate:
                found = await resolve_answer(
                    record.extraction, sample.id, _judge_question(sample), sample.options,
                    text_read(text, record.extraction), judge, random_fallback=self.options.random_fallback,
                    seed=self.options.seed, has_key=sample.answer is not None)
            if found is record.extraction:
                return record
            correct = None if record.target is None else found.answer == record.target
            return record.model_copy(update={"extraction": found, "correct": correct})

        return list(await asyncio.gather(*(one(record) for record in records)))

    def score(self, records: Sequence[SampleRecord]) -> MMStarResult:
        """Round 0, the latest record of each question; failed requests are left for a re-run."""
        latest = {record.sample_id: record for record in records if record.round == 0}
        return score_outcomes(
            Outcome(category=str(r.metadata.get("category", "")),
                    l2_category=str(r.metadata.get("l2-category", "")),
                    answer=str(r.metadata.get("answer", "")) or r.target,
                    extraction=r.extraction if r.response.ok else None)
            for r in latest.values())

    def summary(self, result: MMStarResult) -> list[tuple[str, str]]:
        rows = [("MMStar overall", result.overall.text())]
        rows.extend((f"MMStar {name}", score.text()) for name, score in result.capability.items())
        counts = ", ".join(f"{name} {count}" for name, count in result.extraction.items())
        rows.append(("MMStar extraction", counts or "none"))
        rows.extend(("MMStar note", line) for line in result.headline())
        return rows

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        return {field: sample.metadata[field] for field in RECORD_FIELDS}

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        return choice_baselines(records, lambda record: int(record.metadata.get("n_options", 0)) or None)

    def headline_numbers(self, result: MMStarResult) -> Numbers:
        if result.overall.accuracy is None:
            return Numbers()
        headline = {"MMStar overall": 100 * result.overall.accuracy}
        breakdowns = {key: {name: 100 * score.accuracy for name, score in scores.items()
                            if score.accuracy is not None}
                      for key, scores in (("capability", result.capability), ("axis", result.axis))}
        return Numbers(headline=headline, units=dict.fromkeys(headline, PERCENT), breakdowns=breakdowns)


def _judge_question(sample: Sample) -> str:
    hint = str(sample.metadata.get("hint", ""))
    return f"{hint}\n{sample.question}" if hint else sample.question

#: What the registry finds when the installed metadata predates this benchmark (benchmarks/registry.py).
BENCHMARK = MMStarBenchmark
