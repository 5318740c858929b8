"""Reading the public M3GIA parquet files and joining the ground truth and factor labels shipped with the
package.

The release has one parquet file per language, `<language>_v1.parquet` (the M3GIA README calls them
`<code>_final.parquet`, e.g. `en_final.parquet`; both names are read), with columns `index`, `question`,
`hint`, option columns `A`..`F` (options stop at the first empty one), `image` (a struct holding the PNG
`bytes`, null for text-only questions) and `QuestionTypes`. The files carry no answers: the ground truth, and
the question type, come from `data/m3gia/answer_dict_<language>.jsonl` by question id; factor labels from
`ability_label_dict.json`.

One exception: the built-in sample (see `sample.py`) has its own answers, in a column `answer`, and marks its
files with the parquet key-value metadata `mmgauge.ground_truth = answer-column`. Only files carrying that
mark are read for answers; every other file is judged against the shipped answer files, answer column or not.

`load_questions` takes a folder (searched recursively), a single parquet file, a Hugging Face hub cache folder
(`~/.cache/huggingface/hub` or the `datasets--...M3GIA` folder in it; files are never downloaded) or the word
`hf` for the hub cache huggingface_hub uses (`located`).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from mmgauge.benchmarks.m3gia.languages import CODES, LANGUAGES, language_name
from mmgauge.core.errors import UserError
from mmgauge.datasources.tables import image_bytes
from mmgauge.extraction.options import LETTERS

REQUIRED_COLUMNS: Final[tuple[str, ...]] = ("index", "question", "hint", "A", "B", "image")
TRUTH_KEY: Final = b"mmgauge.ground_truth"
TRUTH_FROM_COLUMN: Final = b"answer-column"
_EMPTY: Final = frozenset({"", "nan", "none"})


def _release(name: str) -> bytes:
    """A file shipped in `mmgauge/data/m3gia`."""
    return (resources.files("mmgauge") / "data" / "m3gia" / name).read_bytes()


@dataclass(frozen=True)
class Truth:
    question_type: str
    answer: str


@cache
def answer_table(language: str) -> dict[str, Truth]:
    """question id -> (type, letter) from the shipped answer file (one JSON array despite the .jsonl name)."""
    text = _release(f"answer_dict_{language}.jsonl").decode("utf-8")
    return {
        str(item["question_id"]): Truth(str(item["question_type"]), str(item["ground_truth"]).strip().upper())
        for item in json.loads(text)
    }


@cache
def factor_table(language: str) -> dict[str, tuple[str, ...]]:
    """question id -> the CHC factors it is labelled with (multi-label)."""
    text = _release("ability_label_dict.json").decode("utf-8")
    labels: dict[str, list[str]] = json.loads(text)[language]
    out: dict[str, list[str]] = {}
    for factor, ids in labels.items():
        for qid in ids:
            out.setdefault(str(qid), []).append(factor)
    return {qid: tuple(factors) for qid, factors in out.items()}


def release_bytes(language: str) -> bytes:
    """The shipped files a language's ground truth depends on, for the dataset fingerprint."""
    return _release(f"answer_dict_{language}.jsonl") + _release("ability_label_dict.json")


@dataclass(frozen=True)
class Question:
    language: str
    question_id: str
    question: str
    hint: str
    options: dict[str, str]
    image: bytes | None
    question_type: str
    factors: tuple[str, ...]
    answer: str
    truth_source: str
    file: str
    row: int


def _text(value: Any) -> str:
    """Cell text; None, NaN and the strings 'nan'/'none' are empty, as the official reader treats them."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    text = str(value).strip()
    return "" if text.lower() in _EMPTY else text


def _question_id(value: Any, file: str, row: int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = _text(value)
    if not text:
        raise UserError("empty question index", file=file, line=row, field="index")
    return text



def read_parquet(path: Path, language: str) -> list[Question]:
    """Questions of one language's parquet file, joined with the ground truth; rows are 1-based."""
    file = str(path)
    from mmgauge.datasources.tables import read_arrow

    table = read_arrow([path])  # held to the input caps; names a file that is not parquet
    columns = list(table.column_names)
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise UserError(f"missing columns {', '.join(missing)} (has: {', '.join(columns)})", file=file)
    metadata = table.schema.metadata or {}
    own_truth = metadata.get(TRUTH_KEY) == TRUTH_FROM_COLUMN
    if own_truth and "answer" not in columns:
        raise UserError("marked as carrying its own answers but has no 'answer' column", file=file)
    truths, factors = answer_table(language), factor_table(language)
    letters = [letter for letter in LETTERS if letter in columns]
    questions: list[Question] = []
    for row, cells in enumerate(table.to_pylist(), start=1):
        qid = _question_id(cells["index"], file, row)
        truth = truths.get(qid)
        if truth is None:
            raise UserError(
                f"question id {qid} has no ground truth in answer_dict_{language}.jsonl "
                f"(ids 1..{len(truths)})", file=file, line=row, field="index")
        options: dict[str, str] = {}
        for letter in letters:
            text = _text(cells[letter])
            if not text:
                break
            options[letter] = text
        if not options:
            raise UserError(f"question {qid} has no options", file=file, line=row, field="A")
        answer = _text(cells.get("answer")).upper() if own_truth else truth.answer
        if own_truth and answer not in options:
            raise UserError(f"answer '{answer}' is not an option of question {qid}", file=file, line=row,
                            field="answer")
        questions.append(Question(
            language=language, question_id=qid, question=_text(cells["question"]), hint=_text(cells["hint"]),
            options=options, image=image_bytes(cells["image"]), question_type=truth.question_type,
            factors=factors.get(qid, ()), answer=answer, file=file, row=row,
            truth_source="sample" if own_truth else "answer_dict",
        ))
    return questions


def _language_of(path: Path, root: Path) -> str | None:
    """The language a parquet file holds, from its name (`english_v1.parquet` as on the Hugging Face hub,
    `en_final.parquet` as in the M3GIA README) or a folder named after it."""
    stem = path.name.lower()
    for word, name in (*((n, n) for n in LANGUAGES), *CODES.items()):
        if stem.startswith(f"{word}_") or stem.startswith(f"{word}-") or stem == f"{word}.parquet":
            return name
    parts = [p.lower() for p in path.relative_to(root).parts[:-1]]
    found = [name for name in LANGUAGES if name in parts]
    return found[0] if len(found) == 1 else None


def hub_snapshot(hub: Path) -> Path:
    """The snapshot folder of the M3GIA dataset in a Hugging Face hub cache (the one `refs/main` names)."""
    repos = [hub] if "m3gia" in hub.name.lower() else sorted(
        p for p in hub.glob("datasets--*") if "m3gia" in p.name.lower() and p.is_dir())
    if not repos:
        message = "no M3GIA dataset in this Hugging Face cache (looked for datasets--*M3GIA*)"
        raise UserError(message, file=str(hub))
    if len(repos) > 1:
        names = ", ".join(p.name for p in repos)
        raise UserError(f"several M3GIA datasets in the cache ({names}); pass one of them", file=str(hub))
    repo = repos[0]
    ref = repo / "refs" / "main"
    if ref.is_file():
        snapshot = repo / "snapshots" / ref.read_text(encoding="utf-8").strip()
        if snapshot.is_dir():
            return snapshot
    snapshots = sorted(p for p in (repo / "snapshots").glob("*") if p.is_dir())
    if len(snapshots) == 1:
        return snapshots[0]
    if not snapshots:
        raise UserError("the cached M3GIA dataset has no snapshot", file=str(repo))
    names = ", ".join(p.name for p in snapshots)
    raise UserError(f"several snapshots and no refs/main ({names}); pass one snapshot folder", file=str(repo))


def _is_hub(path: Path) -> bool:
    if path.name.startswith("datasets--") and "m3gia" in path.name.lower():
        return True
    return any("m3gia" in p.name.lower() for p in path.glob("datasets--*"))


def located(data: Path) -> Path:
    """`data`, or for the word `hf` the M3GIA snapshot in the hub cache huggingface_hub itself uses
    (`HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`)."""
    if str(data) != "hf" or data.exists():
        return data
    from mmgauge.datasources.hf_cache import hub_cache

    return hub_snapshot(hub_cache(os.environ)[0])


def find_files(data: Path, single_language: str | None = None) -> dict[str, Path]:
    """language -> parquet file under `data` (see module docstring for what `data` may be)."""
    data = located(data)
    if not data.exists():
        raise UserError("no such file or folder", file=str(data))
    if data.is_file():
        language = _language_of(data, data.parent) or single_language
        if language is None:
            raise UserError(
                "cannot tell the language of this file from its name (e.g. english_v1.parquet); "
                "pass exactly one language with --language", file=str(data))
        return {language: data}
    from mmgauge.datasources.confine import confined, data_root

    root = hub_snapshot(data) if _is_hub(data) else data
    within = data_root(root)  # a hub snapshot's files are links into the repository's blobs/
    found: dict[str, list[Path]] = {}
    for path in sorted(root.rglob("*.parquet")):
        language = _language_of(path, root)
        if language is not None:
            found.setdefault(language, []).append(confined(path, within))
    if not found:
        raise UserError("no M3GIA parquet files (<language>_v1.parquet) in this folder", file=str(root))
    for language, paths in found.items():
        if len(paths) > 1:
            names = ", ".join(str(p.relative_to(root)) for p in paths)
            raise UserError(f"several files for {language} ({names}); pass one of them", file=str(root))
    return {language: found[language][0] for language in LANGUAGES if language in found}


def load_questions(data: Path, languages: list[str] | None = None) -> tuple[dict[str, Path], list[Question]]:
    """The files used and their questions, languages in canonical order; ids must be unique per language."""
    wanted = [language_name(lang) for lang in languages] if languages else None
    files = find_files(data, wanted[0] if wanted and len(wanted) == 1 else None)
    if wanted is not None:
        absent = [lang for lang in wanted if lang not in files]
        if absent:
            have = ", ".join(files) or "none"
            message = f"no data for {', '.join(absent)} (found: {have})"
            raise UserError(message, file=str(data), field="--language")
        files = {lang: path for lang, path in files.items() if lang in wanted}
    questions: list[Question] = []
    for language, path in files.items():
        seen: set[str] = set()
        for question in read_parquet(path, language):
            if question.question_id in seen:
                raise UserError(f"question id {question.question_id} appears twice", file=str(path),
                                line=question.row, field="index")
            seen.add(question.question_id)
            questions.append(question)
    return files, questions
