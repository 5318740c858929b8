"""The benchmark interface: load samples, build prompts, read answers, score records.

A benchmark declares its own typed options (a `BenchmarkOptions` subclass: only what it understands, unknown
keys rejected) and its result model, and is generic over both, so readers get its result as its type. Most
benchmarks need only `load`, `build_messages`, `extract` and `score`, plus `sample_data` for a built-in
sample; shared kinds (yes/no in `benchmarks/yesno.py`) make the common case a few lines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mmgauge.benchmarks.baseline_answers import Baseline
from mmgauge.benchmarks.baseline_scores import AnsweredRecords
from mmgauge.benchmarks.presets import PresetTable
from mmgauge.core.baselines import Numbers
from mmgauge.core.errors import UserError
from mmgauge.core.loading import import_target
from mmgauge.core.types import AnswerChoice, Extraction, Message, Sample, SampleRecord

if TYPE_CHECKING:  # the judge (sqlite, asyncio, ssl) is loaded by whoever resolves answers with one
    from mmgauge.extraction.judge import Judge


class BenchmarkOptions(BaseModel):
    """Options every benchmark has. A benchmark adds its own in a subclass; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    seed: int = 0
    """Seeds bootstrap intervals, random fallbacks and option shuffling."""
    rounds: int = Field(default=1, ge=1)
    """Ask every question this many times (later rounds sample when the temperature is above 0)."""


class Dataset(BaseModel):
    """The samples of one benchmark and a fingerprint of the data they came from."""

    benchmark: str
    source: str
    fingerprint: str
    samples: list[Sample]


OptionsT = TypeVar("OptionsT", bound=BenchmarkOptions)
ResultT = TypeVar("ResultT", bound=BaseModel)


class Benchmark(ABC, Generic[OptionsT, ResultT]):
    """One evaluation system: a module (or folder) plus an entry in the registry or an entry point."""

    name: ClassVar[str]
    description: ClassVar[str]
    #: The options model (`self.options` is an instance).
    options_type: ClassVar[type[BenchmarkOptions]] = BenchmarkOptions
    #: The model `score` returns; readers of a run folder get the stored result back as this type.
    result_type: ClassVar[type[BaseModel]]
    #: The prompt wordings it offers through its `prompt` option (`benchmarks/presets.py`), if any.
    prompt_presets: ClassVar[PresetTable | None] = None

    # Hooks the framework asks instead of keeping tables by benchmark name, so that a plug-in gets what a
    # built-in gets. Each callable hook is a "module:attribute" string, imported only when asked for
    # (`hook`): naming a hook costs nothing at start-up, and the benchmark's module need not import the
    # report, comparison or command-line code its hooks live in. None means the framework's generic part.
    #: The display name (report, comparison text); the name when empty.
    title: ClassVar[str] = ""
    #: The dataset names VLMEvalKit gives this benchmark's TSVs in $LMUData (`--data vlmevalkit:NAME`).
    vlmevalkit_names: ClassVar[tuple[str, ...]] = ()
    #: Whether `--data hf:ORG/NAME` names the whole dataset snapshot, which `load` takes as it is (else one
    #: split of it is looked for).
    hf_whole_repo: ClassVar[bool] = False
    #: `--data` values `load` reads itself (not paths), passed on unchanged.
    data_words: ClassVar[tuple[str, ...]] = ()
    #: The report's `Section` for this benchmark (an object, not a function).
    report_section: ClassVar[str | None] = None
    #: `compare(a, b, settings) -> [MetricRow]` over two runs' paired `Outcomes`.
    comparer: ClassVar[str | None] = None
    #: `notes(a, b) -> [str]` on two runs' paired `Outcomes`: what the comparison leaves out, said beside it.
    comparison_notes: ClassVar[str | None] = None
    #: `build(answers) -> Outcomes`: the items two runs are paired on (default: one per sample and round).
    outcomes_builder: ClassVar[str | None] = None
    #: `read(path, AnswersRequest) -> AnswersFile | None` (`benchmarks/answer_files.py`): answers scored
    #: elsewhere (what `mmgauge score <name>` reads) for `compare`; None when `path` is no such file of it.
    answers_reader: ClassVar[str | None] = None
    #: `audit(answers, rng) -> entry` for the judge audit (default: no audit of this benchmark).
    audit_rules: ClassVar[str | None] = None
    #: `read(judge, record, text) -> answer or None`: the judge asked about a stored record's answer `text` as
    #: the run's judge pass asks, from the record alone (`audit-judge` then loads no data of it).
    record_judge: ClassVar[str | None] = None
    #: `read(bench, judge, sample, record, text) -> answer or None`: the judge asked about a stored record's
    #: answer `text` as the run's judge pass asks, with its sample (`audit-judge` loads the run's data).
    sample_judge: ClassVar[str | None] = None
    #: The extraction methods of the answers no rule could read (its judge's, unread, random): the judge
    #: audit's and `audit-judge`'s; empty for a benchmark without a judge step.
    rule_unresolved: ClassVar[frozenset[str]] = frozenset()
    #: `row(column, rows) -> MetricRow or None`: a leaderboard column's row among two runs' compared rows,
    #: where `significance_measures` has none.
    significance_row: ClassVar[str | None] = None
    #: `rows(result_json) -> [TidyRow]` for `export table`, when the class has no `tidy` method.
    tidy_rows: ClassVar[str | None] = None
    #: A command-line function mounted as `mmgauge score <name>` (its parameters become the options).
    score_command: ClassVar[str | None] = None
    #: A command-line function mounted as `mmgauge export <name>`: a run's answers in the form the benchmark's
    #: official tool or another toolkit reads.
    export_command: ClassVar[str | None] = None
    #: Functions `import mmgauge` offers by their own names ("module:function" each), such as a scorer of
    #: another toolkit's files: the library's face of `score_command`.
    library_functions: ClassVar[tuple[str, ...]] = ()
    #: The report leaderboard's columns whose neighbouring runs it tests apart: (column label, key paths),
    #: the label as `headline_numbers` names the number, each key path a compared row's (metric, breakdown)
    #: as the benchmark's `comparer` names it; the first found is used.
    significance_measures: ClassVar[tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]] = ()
    #: Old spellings of `score <name>`, still accepted (hidden) with a note naming the new one.
    command_aliases: ClassVar[tuple[str, ...]] = ()
    #: Its own answer files, which `replay:` reads: an `AnswerFiles` object (`backends/replay_formats.py`).
    answer_files: ClassVar[str | None] = None
    #: Whether a run with no --bench evaluates it (on its built-in sample).
    in_default_run: ClassVar[bool] = False
    #: Where it comes among benchmarks in comparisons and displays (then by name).
    display_order: ClassVar[int] = 100

    @classmethod
    def display_name(cls) -> str:
        return cls.title or cls.name

    @classmethod
    def hook(cls, attribute: str) -> Any:
        """The object the hook `attribute` names ("module:attribute"), imported now; None when unset."""
        target = getattr(cls, attribute)
        if target is None:
            return None
        return import_target(str(target))

    def __init__(self, options: OptionsT | Mapping[str, Any] | None = None) -> None:
        self.options: OptionsT = self.parse_options(options)

    @classmethod
    def parse_options(cls, options: BaseModel | Mapping[str, Any] | None) -> OptionsT:
        """`options` as this benchmark's options model; a wrong key or value is a one-line error."""
        if isinstance(options, cls.options_type):
            return cast(OptionsT, options)
        if isinstance(options, BaseModel):
            raw = options.model_dump(exclude_unset=True)
        else:
            raw = dict(options or {})
        try:
            return cast(OptionsT, cls.options_type.model_validate(raw))
        except ValidationError as error:
            first = error.errors()[0]
            key = ".".join(str(part) for part in first["loc"])
            known = ", ".join(cls.options_type.model_fields)
            message = first["msg"] if first["type"] != "extra_forbidden" else f"not an option of {cls.name}"
            raise UserError(f"{message} (its options: {known})", field=f"{cls.name}.{key}") from None

    @abstractmethod
    def load(self, data: Path) -> Dataset:
        """Read a benchmark file or folder; raise `UserError` naming file, row and field on bad input."""

    def select(self, samples: list[Sample], limit: int) -> list[Sample]:
        """The first `limit` samples (benchmarks whose samples come in groups keep groups whole)."""
        return samples[:limit]

    def sample_data(self, directory: Path) -> Path:
        """Write the built-in sample (deterministic) under `directory` and return what `load` takes.

        Optional: a benchmark whose data comes only from files (a plug-in, say) leaves this out, and runs
        of it then need `--data`."""
        raise UserError(no_sample_message(self.name))

    @classmethod
    def has_sample_data(cls) -> bool:
        """Whether it writes a built-in sample (overrides `sample_data`)."""
        return cls.sample_data is not Benchmark.sample_data

    @abstractmethod
    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        """The chat messages for one sample (the prompt)."""

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        """The answers the question allows, as `build_messages` offers them for `round` (None: free text).

        A backend that can weigh them (see `Backend.answers_from_choices`) gets them with the request; each
        must be one `extract` reads back as that answer. Yes/no questions return `YES_NO`, choice questions
        `option_choices` of the options shown.
        """
        return None

    @abstractmethod
    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        """Read the answer out of a model's text by rules only (no judge), recording which rule decided.

        `round` is the round the text answers, for benchmarks whose prompt differs by round.
        """

    def extract_many(self, samples: Sequence[Sample], texts: Sequence[str], rounds: Sequence[int]
                     ) -> list[Extraction]:
        """`extract` of many answers (a batch of responses, a folder's records), for rules run on columns."""
        return [self.extract(sample, text, round) for sample, text, round in zip(samples, texts, rounds,
                                                                                 strict=True)]

    async def resolve(
        self, records: Sequence[SampleRecord], samples: dict[str, Sample], judge: Judge | None
    ) -> list[SampleRecord]:
        """Second pass over finished records: ask the judge where rules left answers unresolved."""
        return list(records)

    @abstractmethod
    def score(self, records: Sequence[SampleRecord]) -> ResultT:
        """Pure scoring over finished records (failed requests are absent or marked, never scored)."""

    def write_outputs(
        self, records: Sequence[SampleRecord], dataset: Dataset, result: ResultT, out_dir: Path
    ) -> list[Path]:
        """Extra files for the run folder, such as an evaluation server's submission file."""
        return []

    def summary(self, result: ResultT) -> list[tuple[str, str]]:
        """Headline lines for the terminal summary table."""
        return []

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        """The sample fields a record keeps so that scoring needs nothing but the records."""
        return dict(sample.metadata)

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        """The trivial answerers to score beside the model (`baseline_answers.py`): none by default.

        They are scored over the same records by `score`, and shown as `headline_numbers` gives them."""
        return []

    def baseline_unit(self, record: SampleRecord) -> Hashable:
        """The records whose answers a number combines share a unit (MME: an image's two questions); chance
        draws answers per record, and is computed exactly per unit (`benchmarks/baseline_scores.py`)."""
        return record.key

    def baseline_numbers(
        self, records: Sequence[SampleRecord], answer_sets: Sequence[Sequence[str]]
    ) -> list[Numbers]:
        """The `headline_numbers` of `records` answered as each of `answer_sets` says (an extracted answer per
        record, as `extract` returns it). By default each set is scored as a model's answers are, through
        `score` over copies of the records; a benchmark whose `score` reads columns may read the columns that
        do not depend on the answers once and score every set from them (a run scores about 18 sets)."""
        answered = AnsweredRecords(records)
        return [self.headline_numbers(self.score(answered.answered(answers))) for answers in answer_sets]

    def headline_numbers(self, result: ResultT) -> Numbers:
        """The result's headline numbers keyed by their `summary` labels, and the breakdowns its report
        charts draw: what baselines are stated in. None by default (then no baseline is shown)."""
        return Numbers()

    def read_result(self, data: Mapping[str, Any]) -> ResultT:
        """A stored result (JSON) back as this benchmark's result type."""
        return cast(ResultT, self.result_type.model_validate(data))


#: The allowed answers of a yes/no question.
YES_NO: Final = (AnswerChoice(answer="Yes", affirms=True), AnswerChoice(answer="No"))


def option_choices(options: Mapping[str, str]) -> list[AnswerChoice] | None:
    """The allowed answers of a choice question: each letter shown, with its option's text (None: none)."""
    return [AnswerChoice(answer=letter, text=text) for letter, text in options.items()] or None


def no_sample_message(name: str) -> str:
    return (f"benchmark '{name}' has no built-in sample; pass its data with --data PATH "
            f"(or --data {name}=PATH)")


#: Any benchmark, whatever its options and result types.
AnyBenchmark = Benchmark[Any, Any]
