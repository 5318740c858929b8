"""M3GIA (Song et al., 2024): 300 multiple-choice questions per language in six languages, 18 question types
in 5 clusters, scored per type, cluster and CHC factor, and summarised as the GIA from the published CFA
models.

Sample ids are `<language>/<question_id>`. Records keep language, question id, type, cluster and factors, so
scoring needs nothing but the records.

Option shuffling (`shuffle_options`, meant for `--rounds N`): every round shows the options in an order drawn
from (seed, sample id, round). The answer is read against the order that round showed and mapped back to the
original letter; the extraction's `detail` records both letters and the order shown.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

from mmgauge.benchmarks.base import Benchmark, BenchmarkOptions, Dataset, option_choices
from mmgauge.benchmarks.baseline_answers import Baseline, choice_baselines
from mmgauge.benchmarks.m3gia.data import Question, load_questions, located, release_bytes
from mmgauge.benchmarks.m3gia.gia import QUESTION_TYPE_TO_COLUMN
from mmgauge.benchmarks.m3gia.languages import LANGUAGES, language_name
from mmgauge.benchmarks.m3gia.prompts import NATIVE, prompt_language, question_text
from mmgauge.benchmarks.m3gia.prompts import TABLE as PROMPTS
from mmgauge.benchmarks.m3gia.scoring import FACTORS, M3GIAResult, Stat, cluster_of, score_m3gia
from mmgauge.benchmarks.presets import PresetTable, PromptFields
from mmgauge.core.baselines import PERCENT, Numbers
from mmgauge.core.types import AnswerChoice, Extraction, ImageRef, Message, Sample, SampleRecord
from mmgauge.extraction.choice import judge_choice, random_choice
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import JUDGE, RANDOM, UNRESOLVED
from mmgauge.extraction.options import LETTERS, extract_option, option_letters
from mmgauge.extraction.reasoning import marked_like, text_read

#: Judge questions in flight at once during the resolve pass.
JUDGE_CONCURRENCY: Final = 8
#: The sample metadata that records keep (see `record_metadata`).
RECORD_FIELDS: Final = ("language", "question_id", "question_type", "cluster", "factors", "count_column",
                        "truth_source", "has_image", "n_options")


def sample_id(question: Question) -> str:
    return f"{question.language}/{question.question_id}"


class M3GIAOptions(BenchmarkOptions):
    languages: list[str] | None = None
    """Languages to evaluate (names or codes); by default every language the data holds."""
    prompt_language: str | None = None
    """The prompt template's language: english (default), native (each question's own) or a language."""
    shuffle_options: bool = False
    """Show the options in a seeded order per round (with `rounds` > 1), mapping answers back."""
    random_fallback: bool = False
    """Give unresolved answers a seeded random letter (off: counted wrong)."""
    prompt: str | None = None
    """The prompt wording: paper (default) or a template file (the toolkits have no M3GIA)."""


class M3GIABenchmark(Benchmark[M3GIAOptions, M3GIAResult]):
    name: ClassVar[str] = "m3gia"
    description: ClassVar[str] = (
        "M3GIA: 18 cognitive question types in 6 languages; accuracy per type, cluster, CHC factor; GIA"
    )
    options_type: ClassVar[type[BenchmarkOptions]] = M3GIAOptions
    result_type: ClassVar[type[M3GIAResult]] = M3GIAResult
    prompt_presets: ClassVar[PresetTable | None] = PROMPTS
    title: ClassVar[str] = "M3GIA"
    vlmevalkit_names: ClassVar[tuple[str, ...]] = ()
    # The loader takes the hub snapshot with all six languages, and `hf` (the default hub cache) itself.
    hf_whole_repo: ClassVar[bool] = True
    data_words: ClassVar[tuple[str, ...]] = ("hf",)
    report_section: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.report:SECTION"
    comparer: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.compare:compare_m3gia"
    significance_measures: ClassVar[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]] = (
        ("M3GIA accuracy %", (("accuracy", "mean of languages"),)),
    )
    significance_row: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.compare:significance_row"
    library_functions: ClassVar[tuple[str, ...]] = ("mmgauge.benchmarks.m3gia.gia_scores:m3gia_gia",
                                                    "mmgauge.benchmarks.m3gia.gia_scores:m3gia_gia_scores")
    outcomes_builder: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.outcomes:from_answers"
    audit_rules: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.audit:audit"
    sample_judge: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.audit:judge_sample"
    rule_unresolved: ClassVar[frozenset[str]] = frozenset({JUDGE, UNRESOLVED, RANDOM})
    tidy_rows: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.tidy:m3gia_rows"
    score_command: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.command:gia_command"
    command_aliases: ClassVar[tuple[str, ...]] = ("m3gia gia",)
    answer_files: ClassVar[str | None] = "mmgauge.benchmarks.m3gia.answer_files:ANSWER_FILES"
    in_default_run: ClassVar[bool] = True
    display_order: ClassVar[int] = 2

    def __init__(self, options: M3GIAOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.prompt_language = prompt_language(self.options.prompt_language)
        self.prompt = PROMPTS.resolve(self.options.prompt)
        wanted = self.options.languages
        self.languages = [language_name(lang) for lang in wanted] if wanted else None

    def load(self, data: Path) -> Dataset:
        data = located(data)  # the word `hf`: the snapshot it names is the source the run records
        files, questions = load_questions(data, self.languages)
        digest = hashlib.sha256()
        for language, path in files.items():
            digest.update(language.encode() + b"\0" + path.read_bytes() + b"\0" + release_bytes(language))
        samples = [self._sample(q) for q in questions]
        return Dataset(benchmark=self.name, source=str(data), fingerprint=digest.hexdigest(), samples=samples)

    def _sample(self, q: Question) -> Sample:
        return Sample(
            id=sample_id(q), benchmark=self.name, question=q.question, options=q.options, answer=q.answer,
            images=[ImageRef(data=q.image)] if q.image is not None else [],
            metadata={
                "language": q.language, "question_id": q.question_id, "question_type": q.question_type,
                "cluster": cluster_of(q.question_type), "factors": list(q.factors),
                "count_column": QUESTION_TYPE_TO_COLUMN[q.question_type], "truth_source": q.truth_source,
                "has_image": q.image is not None, "hint": q.hint, "n_options": len(q.options),
            },
        )

    def sample_data(self, directory: Path) -> Path:
        from mmgauge.benchmarks.m3gia.sample import write_sample  # pyarrow.parquet and PIL: only here

        return write_sample(directory)

    def option_order(self, sample: Sample, round: int) -> list[str]:
        """The original letters in the order shown in `round` (shown letter i holds option order[i])."""
        letters = option_letters(sample.options)
        if self.options.shuffle_options:
            random.Random(f"{self.options.seed}:{sample.id}:{round}").shuffle(letters)
        return letters

    def shown_options(self, sample: Sample, round: int) -> dict[str, str]:
        order = self.option_order(sample, round)
        return {LETTERS[i]: sample.options[letter] for i, letter in enumerate(order)}

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        language = self.prompt_language
        if language == NATIVE:
            language = str(sample.metadata["language"])
        hint = str(sample.metadata.get("hint", ""))
        fields = PromptFields(sample.question, self.shown_options(sample, round), hint, language)
        return self.prompt(fields).messages(sample.images)

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        return option_choices(self.shown_options(sample, round))

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        if not self.options.shuffle_options:
            return extract_option(text, sample.options)
        order = self.option_order(sample, round)
        shown = {LETTERS[i]: sample.options[letter] for i, letter in enumerate(order)}
        return _to_original(extract_option(text, shown), order)

    async def resolve(
        self, records: Sequence[SampleRecord], samples: dict[str, Sample], judge: Judge | None
    ) -> list[SampleRecord]:
        """The judge reads what rules left unresolved (against the options as that round showed them).

        What stays unresolved counts wrong, or gets a seeded random letter with `random_fallback`.
        """
        gate = asyncio.Semaphore(JUDGE_CONCURRENCY)

        async def one(record: SampleRecord) -> SampleRecord:
            sample = samples.get(record.sample_id)
            text = record.response.text
            if sample is None or not record.response.ok or text is None or record.extraction is None:
                return record
            return await self._resolve_one(record, sample, text_read(text, record.extraction), judge, gate)

        return list(await asyncio.gather(*(one(record) for record in records)))

    async def _resolve_one(
        self, record: SampleRecord, sample: Sample, text: str, judge: Judge | None, gate: asyncio.Semaphore
    ) -> SampleRecord:
        order = self.option_order(sample, record.round)
        shown = {LETTERS[i]: sample.options[letter] for i, letter in enumerate(order)}
        found = record.extraction
        assert found is not None
        if found.answer is None and judge is not None:
            question = question_text(sample.question, str(sample.metadata.get("hint", "")))
            async with gate:
                found = _to_original(await judge_choice(judge, question, shown, text), order)
        if found.answer is None and self.options.random_fallback:
            picked = random_choice(f"{sample.id}#{record.round}", list(shown), self.options.seed)
            found = _to_original(picked, order).model_copy(update={"judge_reply": found.judge_reply})
        metadata = dict(record.metadata)
        if self.options.shuffle_options:
            metadata["option_order"] = "".join(order)
        detail = found.detail or ""
        if found.method == UNRESOLVED and found.answer is None and "counted wrong" not in detail:
            detail = f"{detail}; counted wrong" if detail else "counted wrong"
            found = found.model_copy(update={"detail": detail})
        found = marked_like(found, record.extraction)
        correct = found.answer is not None and found.answer == record.target
        return record.model_copy(update={"extraction": found, "correct": correct, "metadata": metadata})

    def score(self, records: Sequence[SampleRecord]) -> M3GIAResult:
        return score_m3gia(records, languages=self.languages or list(LANGUAGES))

    def summary(self, result: M3GIAResult) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = []
        for language, scores in result.per_language.items():
            interval = (scores.overall_ci.text(100, 1) if scores.overall_ci is not None
                        else f"{scores.questions} questions")
            rows.append((f"M3GIA {language} overall",
                         f"{_pct(scores.overall)} ({interval}), {scores.rounds} "
                         + ("round" if scores.rounds == 1 else "rounds")))
            factors = [f"{f} {_pct(scores.factors[f], sd=False)}" for f in FACTORS if f in scores.factors]
            rows.append((f"M3GIA {language} factors", " · ".join(factors)))
            gia = scores.gia
            if gia is not None:
                interval = f"{gia.gia_ci.text(1, 2)}, " if gia.gia_ci is not None else ""
                text = (f"{_num(gia.gia)} ({interval}normalised {_num(gia.gia_normalised)}, "
                        f"human {gia.human_gia:.2f})")
            else:
                text = f"not computed ({scores.questions} of 300 questions scored; see notes)"
            rows.append((f"M3GIA {language} GIA", text))
        if result.mean is not None and len(result.mean.languages) > 1:
            label = f"M3GIA mean over {len(result.mean.languages)} languages"
            rows.append((label, _pct(result.mean.overall)))
        unresolved = result.methods.get(UNRESOLVED, 0)
        if unresolved:
            rows.append(("M3GIA unresolved answers", f"{unresolved} (counted wrong)"))
        if result.methods.get("random"):
            rows.append(("M3GIA random letters", f"{result.methods['random']} (--random-fallback)"))
        if result.failed:
            rows.append(("M3GIA failed requests", f"{result.failed} (not scored)"))
        return rows

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        return {key: sample.metadata[key] for key in RECORD_FIELDS if key in sample.metadata}

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        # Every M3GIA question is single choice; letters are the original ones (shuffling maps answers back).
        return choice_baselines(records, lambda record: int(record.metadata.get("n_options", 0)) or None)

    def headline_numbers(self, result: M3GIAResult) -> Numbers:
        headline = {f"M3GIA {language} overall": 100 * scores.overall.mean
                    for language, scores in result.per_language.items()}
        if result.mean is not None and len(result.mean.languages) > 1:
            label = f"M3GIA mean over {len(result.mean.languages)} languages"
            headline[label] = 100 * result.mean.overall.mean
        breakdowns = {f"clusters/{language}": {name: 100 * s.mean for name, s in scores.clusters.items()}
                      for language, scores in result.per_language.items()}
        return Numbers(headline=headline, units=dict.fromkeys(headline, PERCENT), breakdowns=breakdowns)


def _to_original(found: Extraction, order: list[str]) -> Extraction:
    """A letter read against a shuffled order, mapped back to the option's original letter."""
    if found.answer is None or order == sorted(order) or found.answer not in LETTERS[: len(order)]:
        return found
    original = order[LETTERS.index(found.answer)]
    note = f"shown as {found.answer}, original letter {original} (order shown: {''.join(order)})"
    detail = f"{found.detail}; {note}" if found.detail else note
    return found.model_copy(update={"answer": original, "detail": detail})


def _pct(value: Stat, sd: bool = True) -> str:
    text = f"{100 * value.mean:.1f}%"
    if sd and value.std is not None:
        text += f" ± {100 * value.std:.1f}"
    return text


def _num(value: Stat) -> str:
    return f"{value.mean:.2f}" + (f" ± {value.std:.2f}" if value.std is not None else "")

#: What the registry finds when the installed metadata predates this benchmark (benchmarks/registry.py).
BENCHMARK = M3GIABenchmark
