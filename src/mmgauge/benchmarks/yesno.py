"""A yes/no benchmark from a table of questions: subclass, name it, and it loads, asks, reads and scores.

    class Pope(YesNoBenchmark):
        name = "pope"
        description = "POPE: object hallucination as yes/no questions"

        def sample_data(self, directory): ...   # write a small built-in sample, return its path

The table is a JSONL, CSV or TSV file with columns `id` (or `index`), `question`, `answer` (yes/no), `image`
(a file path relative to the table) and optionally `category`. Answers are read with the whole-word rule
(`extraction/yesno.py`: "yes" xor "no"); scores are accuracy with an exact interval, precision, recall and
F1 of "yes", and the yes-ratio (`scoring/yesno.py`), overall and per category.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from mmgauge.benchmarks.base import YES_NO, Benchmark, BenchmarkOptions, Dataset
from mmgauge.benchmarks.baseline_answers import Baseline, yes_no_baselines
from mmgauge.core.baselines import PERCENT, Numbers
from mmgauge.core.errors import UserError
from mmgauge.core.jsonlines import read_json_objects
from mmgauge.core.types import AnswerChoice, Extraction, ImageRef, Message, Sample, SampleRecord
from mmgauge.extraction.yesno import parse_words
from mmgauge.parts import tidy as table  # its PERCENT is the table's unit name, not the summary's "%"
from mmgauge.scoring.yesno import YesNoResult, score_yes_no


def read_table(path: Path) -> list[tuple[int, dict[str, str]]]:
    """(line, row) of a JSONL, CSV or TSV file; a row that cannot be read is a one-line error."""
    if not path.is_file():
        raise UserError("no such data file", file=str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError("not UTF-8 text", file=str(path)) from None
    if path.suffix.lower() == ".jsonl":
        return [(number, {str(k): "" if v is None else str(v) for k, v in row.items()})
                for number, row in read_json_objects(path)]
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.DictReader(text.splitlines(), delimiter=delimiter)
    return [(number, dict(row)) for number, row in enumerate(reader, start=2)]


class YesNoBenchmark(Benchmark[BenchmarkOptions, YesNoResult]):
    """Base of yes/no benchmarks; a subclass sets `name`, `description` and may write its `sample_data`."""

    result_type: ClassVar[type[YesNoResult]] = YesNoResult
    #: Appended to every question (e.g. " Please answer yes or no.").
    suffix: ClassVar[str] = ""

    def load(self, data: Path) -> Dataset:
        samples = []
        for line, row in read_table(data):
            sample_id = row.get("id") or row.get("index")
            answer = (row.get("answer") or "").strip().lower()
            if not sample_id or not row.get("question"):
                raise UserError("a row needs 'id' and 'question'", file=str(data), line=line)
            if answer not in ("yes", "no"):
                raise UserError(f"answer must be yes or no, not {answer!r}", file=str(data), line=line,
                                field="answer")
            images = [ImageRef(path=str(data.parent / row["image"]), origin_file=str(data), origin_line=line,
                               origin_field="image")] if row.get("image") else []
            samples.append(Sample(id=sample_id, benchmark=self.name, question=row["question"], answer=answer,
                                  images=images, metadata={"category": row.get("category", "")}))
        digest = hashlib.sha256(data.read_bytes()).hexdigest()
        return Dataset(benchmark=self.name, source=str(data), fingerprint=digest, samples=samples)

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        return [Message.user(sample.question + self.suffix, sample.images)]

    def answer_choices(self, sample: Sample, round: int = 0) -> list[AnswerChoice] | None:
        return list(YES_NO)

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        return parse_words(text)

    def score(self, records: Sequence[SampleRecord]) -> YesNoResult:
        return score_yes_no(records)

    def summary(self, result: YesNoResult) -> list[tuple[str, str]]:
        scores = result.overall
        if scores is None:
            return [(f"{self.name}", "nothing answered yet")]
        rows = [(f"{self.name} accuracy", f"{100 * scores.accuracy:.2f}% ({scores.accuracy_ci.text(100)})")]
        f1 = "-" if scores.f1 is None else f"{100 * scores.f1:.2f}"
        ratio = "-" if scores.yes_ratio is None else f"{scores.yes_ratio:.2f}"
        rows.append((f"{self.name} F1 / yes-ratio", f"{f1} / {ratio}"))
        if result.failed:
            rows.append((f"{self.name} failed requests", f"{result.failed} (not scored)"))
        return rows

    def record_metadata(self, sample: Sample) -> dict[str, Any]:
        return dict(sample.metadata)

    def baselines(self, records: Sequence[SampleRecord]) -> list[Baseline]:
        return yes_no_baselines()

    def tidy(self, result: YesNoResult) -> list[table.TidyRow]:
        """The rows of `export table`, as a built-in yes/no benchmark gives them: accuracy (the headline, with
        its interval), precision, recall, F1 and the yes share, in percent, overall and per category."""
        rows: list[table.TidyRow] = []
        categories = result.categories.items()
        parts = [(table.OVERALL, result.overall),
                 *((table.breakdown(("category", name)), scores) for name, scores in categories)]
        for where, scores in parts:
            if scores is None:
                continue
            rows.append(table.metric_row("accuracy", scores.accuracy, table.PERCENT, where=where,
                                         ci=scores.accuracy_ci, scale=100, headline=where == table.OVERALL))
            # No interval for these (the result has none), so no `n` either: the table's n is what an
            # interval rests on, and precision's would not be the questions.
            rows += [table.metric_row(name, getattr(scores, name), table.PERCENT, where=where, scale=100)
                     for name in ("precision", "recall", "f1", "yes_ratio")]
        return rows

    def headline_numbers(self, result: YesNoResult) -> Numbers:
        scores = result.overall
        if scores is None:
            return Numbers()
        accuracy, f1 = f"{self.name} accuracy", f"{self.name} F1"
        headline = {accuracy: 100 * scores.accuracy}
        if scores.f1 is not None:
            headline[f1] = 100 * scores.f1
        categories = {name: 100 * s.accuracy for name, s in result.categories.items()}
        return Numbers(headline=headline, units=dict.fromkeys(headline, PERCENT),
                       breakdowns={"accuracy": categories} if categories else {}, nonlinear=[f1])
