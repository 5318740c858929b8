"""The official MME tool's results folders (read and write), prediction tables and run records, as `MMEItem`s.

Results folder: one `<subtask>.txt` per subtask, lines `image<TAB>question<TAB>ground_truth<TAB>prediction`,
the two questions of an image on consecutive lines. The tool uses `readlines()` and splits on tabs, so
an answer holding a tab or a line break would break it. On export each tab, CR and LF inside an answer (or a
question) is replaced by one space. That never changes what the official parser reads: it looks only at the
letters of the first 4 characters (or the whole answer being exactly "yes"/"no"), and the replacement keeps
every character in place. The run's samples.jsonl keeps the answer untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.benchmarks.mme.release import (
    Row,
    canonical_subtask,
    check_pair,
    group_pairs,
    image_keys,
    parse_truth,
    read_lines,
    read_table,
    require_columns,
)
from mmgauge.benchmarks.mme.scoring import SUBTASKS, MMEItem
from mmgauge.core.errors import UserError

if TYPE_CHECKING:
    # The record and answer models are loaded by the readers that make them: finding a results folder's
    # files (what `score mme` needs before reading them column-wise) loads neither.
    from mmgauge.core.types import SampleRecord

BENCHMARK = "mme"


def sanitize(text: str) -> str:
    """One space for each tab, CR and LF: the official tool's file format cannot hold them."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _results_files(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.iterdir())
            if p.is_file() and p.suffix.lower() == ".txt" and not p.name.startswith(".")]


def results_files(folder: Path) -> list[tuple[Path, str]]:
    """The `<subtask>.txt` files of a results folder with their subtask, checked (known, each once)."""
    files = _results_files(folder)
    if not files:
        raise UserError("no <subtask>.txt results files (nor a run's records) in this folder",
                        file=str(folder))
    seen: dict[str, Path] = {}
    for path in files:
        subtask = canonical_subtask(path.stem)
        if subtask is None:
            raise UserError(f"not an MME subtask results file (known: {', '.join(SUBTASKS)})", file=str(path))
        if subtask in seen:
            raise UserError(f"two results files for subtask {subtask}: {seen[subtask].name} and {path.name}",
                            file=str(path))
        seen[subtask] = path
    return [(path, subtask) for subtask, path in seen.items()]


def read_results_folder(folder: Path, parser: str) -> list[MMEItem]:
    """The questions of a results folder, named (comparisons pair them); scoring reads columns instead."""
    items: list[MMEItem] = []
    for path, subtask in results_files(folder):
        items.extend(_read_results_file(path, subtask, parser))
    return items


def check_results_folder(folder: Path) -> None:
    """The one-line error (file, line) of the first problem in a results folder's files, if there is one."""
    for path, subtask in results_files(folder):
        _pairs(path, subtask)


def results_folder_extras(folder: Path) -> list[str]:
    """Entries of a results folder that are not read (not `<subtask>.txt` files), for a note."""
    read = set(_results_files(folder))
    return sorted(p.name for p in folder.iterdir() if p not in read and not p.name.startswith("."))


def _read_results_file(path: Path, subtask: str, parser: str) -> list[MMEItem]:
    from mmgauge.extraction.yesno import parse_yes_no_many

    questions = _pairs(path, subtask)
    read = parse_yes_no_many([answer for _, _, answer in questions], parser)
    return [MMEItem(subtask, key, truth, extraction.answer, extraction.method)
            for (key, truth, _), extraction in zip(questions, read, strict=True)]


def _pairs(path: Path, subtask: str) -> list[tuple[str, str, str]]:
    """A results file's questions, checked: (image key, truth, answer) per line."""
    file = str(path)
    lines = read_lines(path)
    if not lines:
        raise UserError(f"empty results file: no answers for subtask {subtask} (delete the file if the "
                        "subtask was not evaluated)", file=file)
    if len(lines) % 2:
        raise UserError(f"odd number of lines ({len(lines)}); each image needs two consecutive lines",
                        file=file, line=len(lines))
    questions: list[tuple[str, str, str]] = []  # image key, truth, answer
    seen: set[str] = set()
    for first in range(0, len(lines), 2):
        pair = []
        for number in (first + 1, first + 2):
            fields = lines[number - 1].split("\t")
            if len(fields) != 4:
                hint = " (no prediction: the template, not a results file?)" if len(fields) == 3 else ""
                raise UserError(
                    f"expected 4 tab-separated fields (image, question, ground truth, prediction), "
                    f"found {len(fields)}{hint}", file=file, line=number)
            pair.append((number, fields))
        (_, (image, *_)), (second, (other_image, *_)) = pair
        if image != other_image:
            raise UserError(f"lines {second - 1} and {second} must be the two questions of one image "
                            f"('{image}' vs '{other_image}')", file=file, line=second)
        truths = [parse_truth(fields[2], file, number) for number, fields in pair]
        check_pair(truths, file, second, image)
        # The official tool pairs by position only; a repeated image name is still its own pair.
        key = image if image not in seen else f"{image} (line {second - 1})"
        seen.add(image)
        questions.extend((key, truth, fields[3]) for truth, (_, fields) in zip(truths, pair, strict=True))
    return questions


def read_prediction_table(path: Path, parser: str) -> list[MMEItem]:
    """A TSV/XLSX/JSONL of questions with a `prediction` column; an empty cell is an empty answer ("other"),
    a JSON null is a missing answer (counted as failed, not scored)."""
    from mmgauge.extraction.yesno import parse_yes_no_many

    file = str(path)
    rows = _lmms_eval_rows(path) if path.suffix.lower() == ".jsonl" else None
    rows = read_table(path) if rows is None else rows
    if not rows:
        raise UserError("no rows", file=file)
    require_columns(rows, ("answer", "prediction"), file)
    items: list[MMEItem] = []
    answers: list[tuple[int, str]] = []  # the item of each prediction, and its text
    for subtask, key, members in group_pairs(rows, image_keys(rows, file), file):
        for row in members:
            truth = parse_truth(row.cells.get("answer") or "", file, row.line)
            prediction = row.cells["prediction"]
            if prediction is not None:
                answers.append((len(items), prediction))
            items.append(MMEItem(subtask, key, truth, None, "missing", failed=prediction is None))
    read = parse_yes_no_many([text for _, text in answers], parser)
    for (at, _), extraction in zip(answers, read, strict=True):
        items[at] = replace(items[at], answer=extraction.answer, method=extraction.method)
    return items


def _lmms_eval_rows(path: Path) -> list[Row] | None:
    """An lmms-eval `--log_samples` file of the MME task as table rows in `doc_id` order (the dataset's, which
    puts an image's two questions together), None if `path` is not one. `replay:` reads the same lines."""
    from mmgauge.backends.replay_formats import image_of, is_lmms_eval_line, lmms_eval_documents
    from mmgauge.core.jsonlines import read_json_objects

    lines = read_json_objects(path)
    if not lines or not is_lmms_eval_line(lines[0][1]):
        return None
    mmbench, documents = lmms_eval_documents(lines, str(path))
    if mmbench:
        raise UserError("an lmms-eval log of MMBench, not MME: score it with `mmgauge score mmbench`",
                        file=str(path))
    return [Row(doc.line, {"category": doc.subtask, "image_name": image_of(doc.question_id),
                           "answer": doc.target or "", "prediction": doc.text}) for doc in documents]


def read_records(path: Path) -> list[SampleRecord]:
    """MME records of a record log file; the last record for a (benchmark, sample_id, round) wins."""
    from mmgauge.store.runlog import read_records as read_log

    latest: dict[tuple[str, str, int], SampleRecord] = {}
    for record in read_log(path):
        if record.benchmark == BENCHMARK:
            latest[record.key] = record
    return list(latest.values())


#: Where a record was read from: (file, line), for naming a record found wrong after reading.
Locate = Callable[["SampleRecord"], tuple[str, "int | None"]]


def records_to_items(records: Sequence[SampleRecord], parser: str, where: Locate | None = None,
                     ) -> list[MMEItem]:
    """Items from run records (last record per key wins). Failed requests become `failed` items.

    A record without the subtask and image it asks about (its `metadata`) cannot be paired: an error named
    by `where` (its file and line)."""
    from mmgauge.extraction.yesno import parse_yes_no_many

    latest: dict[tuple[str, str, int], SampleRecord] = {}
    for record in records:
        latest[record.key] = record
    unread = [r for r in latest.values() if r.extraction is None and r.response.error is None
              and r.response.text is not None]
    texts = [r.response.text or "" for r in unread]
    read = dict(zip([r.key for r in unread], parse_yes_no_many(texts, parser), strict=True))
    items: list[MMEItem] = []
    for record in latest.values():
        meta = record.metadata
        for name in ("subtask", "image"):
            if meta.get(name) is None:
                file, line = where(record) if where is not None else (None, None)
                raise UserError(f"missing: MME record {record.sample_id!r} does not say which {name} it "
                                "asks about", file=file, line=line, field=f"metadata.{name}")
        subtask, image = str(meta["subtask"]), str(meta["image"])
        truth = str(meta.get("truth") or record.target or "").lower()
        # Extra rounds are further full passes: each round's two answers form their own pair.
        key = image if record.round == 0 else f"{image}@{record.round}"
        if record.response.error is not None or record.response.text is None:
            items.append(MMEItem(subtask, key, truth, None, "failed", failed=True))
            continue
        extraction = record.extraction or read[record.key]
        items.append(MMEItem(subtask, key, truth, extraction.answer, extraction.method))
    return items


@dataclass
class ExportReport:
    written: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def write_results_folder(records: Sequence[SampleRecord], out: Path) -> ExportReport:
    """One `<subtask>.txt` per subtask whose questions all have answers; others are skipped and reported,
    because the official tool would need an answer where the request failed."""
    by_subtask: dict[str, list[SampleRecord]] = {}
    for record in records:
        if record.round == 0:
            by_subtask.setdefault(str(record.metadata["subtask"]), []).append(record)
    report = ExportReport()
    out.mkdir(parents=True, exist_ok=True)
    for subtask in SUBTASKS:
        members = sorted(by_subtask.get(subtask, []),
                         key=lambda r: (int(r.metadata.get("order", 0)), str(r.metadata["image"]),
                                        int(r.metadata.get("index", 0))))
        if not members:
            continue
        failed = sum(not r.response.ok for r in members)
        images: dict[str, int] = {}
        for record in members:
            images[str(record.metadata["image"])] = images.get(str(record.metadata["image"]), 0) + 1
        unpaired = sorted(name for name, count in images.items() if count != 2)
        if failed or unpaired:
            reason = f"{failed} failed request(s)" if failed else f"images lacking an answer: {unpaired[:3]}"
            report.skipped[subtask] = reason
            continue
        lines = []
        for record in members:
            question = sanitize(str(record.metadata.get("question", record.prompt)))
            truth = str(record.metadata.get("truth") or record.target).capitalize()
            lines.append(f"{sanitize(str(record.metadata['image']))}\t{question}\t{truth}\t"
                         f"{sanitize(record.response.text or '')}\n")
        (out / f"{subtask}.txt").write_bytes("".join(lines).encode("utf-8"))
        report.written[subtask] = len(lines)
    return report
