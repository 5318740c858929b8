"""Scoring answers that other toolkits produced, for `mmgauge score pope FILE`.

- VLMEvalKit's prediction file (`<model>_POPE.xlsx`, or .tsv/.csv): POPE.tsv's columns (`index`, `question`,
  `answer`, `category`, ...) plus `prediction`, the model's raw text. Its own `_auxmatch` file adds
  `extracted`, which is ignored: the prediction is read again with the chosen reader.
- lmms-eval's `--log_samples` JSONL of its `pope` tasks: one line per document with `doc_id`, `doc` (the row
  without its image columns: `question_id`, `question`, `answer`, `category`), `target`, `resps`,
  `filtered_resps` (the text, `["..."]`) and the metric entries (`pope_accuracy`: `question_id`,
  `prediction`, `ground_truth`). lmms-eval's own `prediction` is lower-cased and stripped, so the raw text
  is read from `filtered_resps`. Without `doc.category`, the split comes from the task in the file name
  (`pope_adv`, `pope_pop`, `pope_random`); otherwise only the overall score is given.

A row without a prediction (an empty cell, no response) is a failed request: not scored, counted in `failed`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from mmgauge.benchmarks.pope.data import parse_splits, parse_truth
from mmgauge.benchmarks.pope.reading import READERS, read_answer
from mmgauge.benchmarks.pope.result import PopeResult
from mmgauge.benchmarks.pope.scoring import PopeItem, score_pope
from mmgauge.core.errors import UserError
from mmgauge.core.jsonlines import read_json_objects

PREDICTION_COLUMNS: Final = ("index", "answer", "category", "prediction")
#: lmms-eval's task names of the single-split POPE tasks.
LMMS_EVAL_TASKS: Final = {"pope_adv": "adversarial", "pope_pop": "popular", "pope_random": "random"}
#: lmms-eval's metric entries of the POPE task (each carries question_id, prediction, ground_truth).
LMMS_EVAL_ENTRIES: Final = ("pope_accuracy", "pope_f1_score", "pope_precision", "pope_recall")


def score_predictions(path: Path, parser: str = "official", seed: int = 0) -> PopeResult:
    """The POPE result of a VLMEvalKit prediction file or an lmms-eval sample log, read by `parser`."""
    if parser not in READERS:
        raise UserError(f"unknown POPE reader '{parser}'; choose one of: {', '.join(READERS)}",
                        field="--parser")
    if not path.is_file():
        raise UserError("no such predictions file", file=str(path))
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return _lmms_eval(path, parser, seed)
    if suffix in (".xlsx", ".tsv", ".csv"):
        return _vlmevalkit(path, parser, seed)
    raise UserError("expected VLMEvalKit's predictions (.xlsx/.tsv/.csv) or lmms-eval's samples (.jsonl)",
                    file=str(path))


def _vlmevalkit(path: Path, parser: str, seed: int) -> PopeResult:
    import pandas as pd

    from mmgauge.datasources.spreadsheets import read_sheet

    file = str(path)
    if path.suffix.lower() == ".xlsx":
        frame = read_sheet(path, dtype=str, keep_default_na=False)
    else:
        try:
            frame = pd.read_csv(path, sep="," if path.suffix.lower() == ".csv" else "\t", dtype=str,
                                keep_default_na=False, encoding="utf-8")
        except (ValueError, OSError) as error:
            raise UserError(f"cannot read predictions: {error}".splitlines()[0], file=file) from None
    missing = [column for column in PREDICTION_COLUMNS if column not in frame.columns]
    if missing:
        raise UserError(f"missing column(s) {', '.join(missing)} of VLMEvalKit's POPE predictions "
                        f"(has: {', '.join(map(str, frame.columns))})", file=file)
    items: list[PopeItem] = []
    failed, seen = 0, dict[str, int]()
    for number, row in enumerate(frame.to_dict("records")):
        line = number + 2
        index = str(row["index"]).strip()
        if index in seen:
            raise UserError(f"index {index} again (first on line {seen[index]})", file=file, line=line,
                            field="index")
        seen[index] = line
        truth = parse_truth(str(row["answer"]), file, line)
        splits = parse_splits(str(row["category"]), file, line)
        text = str(row["prediction"])
        if not text.strip():
            failed += 1
            continue
        items.append(PopeItem(index, splits, truth, read_answer(text, parser).answer, index))
    return score_pope(items, reader=parser, failed=failed, seed=seed)


def _text(value: Any) -> str | None:
    """The first string inside (possibly nested) lists: lmms-eval logs `filtered_resps` as `["text"]`."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _lmms_eval(path: Path, parser: str, seed: int) -> PopeResult:
    file = str(path)
    task_split = next((split for task, split in LMMS_EVAL_TASKS.items() if task in path.name), None)
    items: list[PopeItem] = []
    failed, unsplit, seen = 0, 0, dict[str, int]()
    for line, row in read_json_objects(path):
        if "doc_id" not in row:
            raise UserError("not an lmms-eval sample line (no doc_id)", file=file, line=line)
        doc: dict[str, Any] = row["doc"] if isinstance(row.get("doc"), dict) else {}
        entry: dict[str, Any] = next((row[k] for k in LMMS_EVAL_ENTRIES if isinstance(row.get(k), dict)), {})
        question_id = doc.get("question_id", entry.get("question_id"))
        if question_id is None:
            raise UserError("no question_id (in doc or pope_accuracy): not a POPE task log", file=file,
                            line=line)
        truth = next((t for t in (_text(doc.get("answer")), _text(row.get("target")),
                                  _text(entry.get("ground_truth"))) if t), "")
        if doc.get("category"):
            splits = parse_splits(str(doc["category"]), file, line)
        else:
            splits = (task_split,) if task_split else ()
            unsplit += not splits
        sample_id = f"{','.join(splits)}/{question_id}" if splits else f"doc{row['doc_id']}"
        if sample_id in seen:
            raise UserError(f"question {sample_id} again (first on line {seen[sample_id]})", file=file,
                            line=line)
        seen[sample_id] = line
        truth = parse_truth(truth, file, line)
        text = _text(row.get("filtered_resps")) or _text(row.get("resps"))
        if text is None:
            failed += 1
            continue
        items.append(PopeItem(sample_id, splits, truth, read_answer(text, parser).answer, sample_id))
    if not items and not failed:
        raise UserError("no lines in this lmms-eval log", file=file)
    notes = [f"{unsplit} documents name no split (no doc.category, no pope_adv/pope_pop/pope_random task "
             "in the file name): they count in the overall score only"] if unsplit else []
    return score_pope(items, reader=parser, failed=failed, seed=seed, notes=notes)
