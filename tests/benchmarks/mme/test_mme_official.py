"""Official results folders, prediction tables, run records, and export to the official format."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mmgauge.benchmarks.mme.official import (
    read_prediction_table,
    read_records,
    read_results_folder,
    records_to_items,
    sanitize,
    write_results_folder,
)
from mmgauge.benchmarks.mme.scoring import score_mme
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, SampleRecord
from mmgauge.extraction.yesno import parse_official

# Hand-made results folder. Derivation (official parser):
# existence  a: "Yes" exact yes (right), "No" exact no (right)           -> pair right
#            b: " yes, it is" prefix yes (right), "Yes." prefix yes (wrong)
#            acc 3/4 = 75, acc+ 1/2 = 50, score 125, other 0, yes-ratio 3/4
# count      a: "The answer is yes" other (wrong), "none" prefix no (right)
#            b: "  yes" other (wrong), "I don't know" other (wrong)
#            c: "yesterday" prefix yes (right), "not sure" prefix no (right) -> pair right
#            acc 3/6 = 50, acc+ 1/3, score 83.33.., other 3, yes-ratio 1/6
# OCR        a: "NO" exact no (wrong), "nope" prefix no (right)        -> acc 50, acc+ 0, score 50
# code_reasoning a: "yes", "No" -> acc 100, acc+ 100, score 200
# perception = 125 + 83.33.. + 50 = 258.33.. (partial), cognition = 200 (partial)
# With the words parser: count becomes a: yes (right), unknown; b: yes (right), unknown; c: unknown, unknown
#            -> acc 2/6, acc+ 0, other 4; existence and OCR and code_reasoning are unchanged
#            ("Yes." -> yes, "nope" -> unknown makes OCR acc 0: "NO" no (wrong), "nope" unknown (wrong)).
FOLDER = {
    "existence.txt": [("a.jpg", "Yes", "Yes"), ("a.jpg", "No", "No"), ("b.jpg", "Yes", " yes, it is"),
                      ("b.jpg", "No", "Yes.")],
    "count.txt": [("a.jpg", "Yes", "The answer is yes"), ("a.jpg", "No", "none"),
                  ("b.jpg", "Yes", "  yes"), ("b.jpg", "No", "I don't know"),
                  ("c.jpg", "Yes", "yesterday"), ("c.jpg", "No", "not sure")],
    "OCR.txt": [("a.jpg", "Yes", "NO"), ("a.jpg", "No", "nope")],
    "code_reasoning.txt": [("a.png", "Yes", "yes"), ("a.png", "No", "No")],
}


def write_folder(root: Path, files: dict[str, list[tuple[str, str, str]]] = FOLDER) -> Path:
    root.mkdir(exist_ok=True)
    for name, rows in files.items():
        text = "".join(f"{image}\tQ{i}? Please answer yes or no.\t{gt}\t{pred}\n"
                       for i, (image, gt, pred) in enumerate(rows))
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_results_folder_official_parser(tmp_path: Path) -> None:
    result = score_mme(read_results_folder(write_folder(tmp_path), "official"), parser="official")
    s = result.subtasks
    assert (s["existence"].score, s["existence"].other, s["existence"].yes_ratio) == (125.0, 0, 0.75)
    assert math.isclose(s["count"].score, 50 + 100 / 3) and s["count"].other == 3
    assert math.isclose(s["count"].yes_ratio, 1 / 3)  # 1 yes among the 3 answers read as yes or no
    assert s["OCR"].score == 50.0 and s["code_reasoning"].score == 200.0
    assert math.isclose(result.perception.score, 258 + 1 / 3)
    assert result.cognition.score == 200.0 and result.perception.partial and result.cognition.partial
    assert s["count"].methods == {"official-other": 3, "official-prefix": 3}


def test_results_folder_words_parser(tmp_path: Path) -> None:
    result = score_mme(read_results_folder(write_folder(tmp_path), "words"), parser="words")
    s = result.subtasks
    assert s["existence"].score == 125.0
    assert math.isclose(s["count"].acc, 100 * 2 / 6) and s["count"].acc_plus == 0 and s["count"].other == 4
    assert (s["OCR"].acc, s["OCR"].other) == (0.0, 1)
    assert result.parser == "words"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a\tQ\tYes\tyes\n", 1, "odd number of lines"),
        ("a\tQ\tYes\tyes\nb\tQ\tNo\tno\n", 2, "must be the two questions of one image"),
        ("a\tQ\tYes\tyes\na\tQ\tYes\tno\n", 2, "one Yes and one No"),
        ("a\tQ\tYes\tyes\na\tQ\tN\tno\n", 2, "ground truth must be Yes or No"),
        ("a\tQ\tYes\tyes\na\tQ\tNo\tno\tand\tmore\n", 2, "found 6"),
        ("a\tQ\tYes\na\tQ\tNo\n", 1, "template, not a results file"),
        ("a\tQ\tYes\tyes\n\na\tQ\tNo\tno\n", 2, "empty line"),
    ],
)
def test_bad_results_file(tmp_path: Path, text: str, line: int, message: str) -> None:
    (tmp_path / "color.txt").write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match=message) as caught:
        read_results_folder(tmp_path, "official")
    assert caught.value.file == str(tmp_path / "color.txt") and caught.value.line == line


def test_results_file_bom_crlf_and_unknown_file(tmp_path: Path) -> None:
    (tmp_path / "color.txt").write_bytes(b"\xef\xbb\xbfa\tQ\tYes\tyes\r\na\tQ\tNo\tno\r\n")
    items = read_results_folder(tmp_path, "official")
    assert [(i.image, i.answer, i.method) for i in items] == [("a", "yes", "official-exact"),
                                                             ("a", "no", "official-exact")]
    (tmp_path / "colour.txt").write_text("x")
    with pytest.raises(UserError, match="not an MME subtask results file"):
        read_results_folder(tmp_path, "official")


def test_prediction_jsonl_with_null_is_failed(tmp_path: Path) -> None:
    rows = [{"category": "OCR", "image_path": "x/a.jpg", "answer": "Yes", "prediction": "Yes"},
            {"category": "OCR", "image_path": "x/a.jpg", "answer": "No", "prediction": None}]
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = read_prediction_table(path, "official")
    assert [i.failed for i in items] == [False, True]
    # the only image lacks one answer, so nothing of OCR can be scored: the total names it as missing
    result = score_mme(items, parser="official")
    assert "OCR" in result.perception.missing and result.failed == 1


def test_prediction_xlsx(tmp_path: Path) -> None:
    import pandas as pd

    path = tmp_path / "preds.xlsx"
    pd.DataFrame({"index": [1, 2], "question": ["Q1", "Q2"], "answer": ["Yes", "No"],
                  "category": ["color", "color"], "image_path": ["c/1.jpg", "c/1.jpg"],
                  "prediction": ["Yes", ""]}).to_excel(path, index=False)
    items = read_prediction_table(path, "official")
    assert [(i.answer, i.method) for i in items] == [("yes", "official-exact"), (None, "official-other")]


def record(sid: str, text: str | None, *, error: str | None = None, round: int = 0) -> SampleRecord:
    subtask, image, q = sid.split("/")
    index = int(q[1])
    truth = "yes" if index == 0 else "no"
    extraction = None if text is None else parse_official(text)
    return SampleRecord(
        benchmark="mme", sample_id=sid, round=round, fingerprint="f", prompt=f"{image} {q}?",
        response=ModelResponse(text=text, error=error), extraction=extraction, target=truth,
        metadata={"subtask": subtask, "image": image, "index": index, "order": 0, "truth": truth,
                  "question": f"Is it {q}?\tPlease answer\nyes or no."})


def test_export_writes_safe_lines_and_round_trips(tmp_path: Path) -> None:
    records = [record("OCR/a.jpg/q1", "No,\tbecause\nit is not"), record("OCR/a.jpg/q0", "\nyes\r\n"),
               record("color/b.jpg/q0", "yes"), record("color/b.jpg/q1", None, error="timeout")]
    report = write_results_folder(records, tmp_path / "out")
    assert report.written == {"OCR": 2} and "color" in report.skipped
    lines = (tmp_path / "out" / "OCR.txt").read_bytes().split(b"\n")
    assert lines[0] == b"a.jpg\tIs it q0? Please answer yes or no.\tYes\t yes  "
    assert lines[1] == b"a.jpg\tIs it q1? Please answer yes or no.\tNo\tNo, because it is not"
    back = score_mme(read_results_folder(tmp_path / "out", "official"), parser="official")
    direct = score_mme(records_to_items(records[:2], "official"), parser="official")
    assert back.subtasks["OCR"] == direct.subtasks["OCR"]


@pytest.mark.parametrize("text", ["\nyes", "\tno", "n\no", "ye\ts", "yes\r\n", "\r\nno", "  yes\n"])
def test_sanitizing_never_changes_the_official_parse(text: str) -> None:
    assert parse_official(sanitize(text)).answer == parse_official(text).answer


def test_read_records_last_wins_and_failures(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    rows = [record("OCR/a.jpg/q0", None, error="boom"), record("OCR/a.jpg/q0", "yes"),
            record("OCR/a.jpg/q1", None, error="boom")]
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    records = read_records(path)
    items = records_to_items(records, "official")
    assert [(i.answer, i.failed) for i in items] == [("yes", False), (None, True)]
    path.write_text("{not json\n")
    with pytest.raises(UserError, match="not a sample record") as caught:
        read_records(path)
    assert caught.value.line == 1
