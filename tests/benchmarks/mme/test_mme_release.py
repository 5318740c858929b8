"""Loading the MME release folder (both layouts) and the single TSV, and every bad-input case."""

from __future__ import annotations

import base64
import csv
import io
from pathlib import Path

import pytest

from mmgauge.benchmarks.mme.bench import MMEBenchmark
from mmgauge.benchmarks.mme.data import load_questions
from mmgauge.core.errors import UserError
from mmgauge.testing.toy import tiny_png

PNG = tiny_png(0)


def side_by_side(root: Path, subtask: str = "count", stem: str = "0001", text: str | None = None) -> Path:
    folder = root / subtask
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.jpg").write_bytes(PNG)
    question = folder / f"{stem}.txt"
    default = "Two cats? Please answer yes or no.\tYes\nOne cat? Please answer yes or no.\tNo\n"
    question.write_bytes((text or default).encode())
    return question


def split_layout(root: Path, subtask: str = "scene", stem: str = "abc") -> Path:
    (root / subtask / "images").mkdir(parents=True)
    (root / subtask / "questions_answers_YN").mkdir()
    (root / subtask / "images" / f"{stem}.png").write_bytes(PNG)
    question = root / subtask / "questions_answers_YN" / f"{stem}.txt"
    question.write_text("Beach? Please answer yes or no.\tYes\nDesert? Please answer yes or no.\tNo\n")
    return question


def test_both_layouts(tmp_path: Path) -> None:
    side_by_side(tmp_path)
    split_layout(tmp_path)
    dataset = MMEBenchmark().load(tmp_path)
    ids = [s.id for s in dataset.samples]
    assert ids == ["count/0001.jpg/q0", "count/0001.jpg/q1", "scene/abc.png/q0", "scene/abc.png/q1"]
    first = dataset.samples[0]
    assert first.answer == "yes" and dataset.samples[1].answer == "no"
    assert first.question == "Two cats? Please answer yes or no."
    assert first.images[0].load() == PNG
    assert first.metadata["subtask"] == "count" and first.metadata["index"] == 0


def test_bom_and_crlf_are_read_correctly(tmp_path: Path) -> None:
    text = "\ufeffQ1? Please answer yes or no.\tYes\r\nQ2? Please answer yes or no.\tNo\r\n"
    side_by_side(tmp_path, text=text)
    questions = load_questions(tmp_path)
    assert [(q.question, q.truth) for q in questions] == [
        ("Q1? Please answer yes or no.", "yes"), ("Q2? Please answer yes or no.", "no")]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("Q1\tYes\n", 1, "one Yes and one No"),  # odd: one line only
        ("Q1\tYes\nQ2\tNo\nQ3\tNo\n", 3, "one Yes and one No"),
        ("Q1\tYes\nQ2\tYes\n", 2, "one Yes and one No"),
        ("Q1\tYes\nQ2\tMaybe\n", 2, "ground truth must be Yes or No"),
        ("Q1\tYes\nQ2\tNo\textra\n", 2, "expected 2 tab-separated fields"),
        ("Q1 Yes\nQ2\tNo\n", 1, "expected 2 tab-separated fields"),
        ("Q1\tYes\n\nQ2\tNo\n", 2, "empty line"),
    ],
)
def test_bad_question_file(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = side_by_side(tmp_path, text=text)
    with pytest.raises(UserError, match=message) as caught:
        load_questions(tmp_path)
    assert caught.value.file == str(path) and caught.value.line == line


def test_files_fitting_neither_layout_are_named(tmp_path: Path) -> None:
    side_by_side(tmp_path)
    (tmp_path / "count" / "notes.md").write_text("x")
    with pytest.raises(UserError, match="fits neither") as caught:
        load_questions(tmp_path)
    assert caught.value.file == str(tmp_path / "count" / "notes.md")


def test_image_without_questions_and_questions_without_image(tmp_path: Path) -> None:
    side_by_side(tmp_path)
    (tmp_path / "count" / "0002.jpg").write_bytes(PNG)
    with pytest.raises(UserError, match="image without a question file"):
        load_questions(tmp_path)
    (tmp_path / "count" / "0002.jpg").unlink()
    (tmp_path / "count" / "0003.txt").write_text("Q\tYes\nQ\tNo\n")
    with pytest.raises(UserError, match="question file without an image"):
        load_questions(tmp_path)


def test_no_subtask_folder(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    with pytest.raises(UserError, match="no MME subtask folder"):
        load_questions(tmp_path)


def write_tsv(path: Path, rows: list[list[str]], header: list[str] | None = None) -> Path:
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(header or ["index", "image", "question", "answer", "category", "image_path"])
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


B64 = base64.b64encode(PNG * 4).decode()


def test_tsv_with_image_references(tmp_path: Path) -> None:
    path = write_tsv(tmp_path / "MME.tsv", [
        ["0", B64, 'Is the word "a\tb"? Please answer yes or no.', "Yes", "OCR", "OCR/0001.jpg"],
        ["1", "0", "Q2? Please answer yes or no.", "No", "OCR", "OCR/0001.jpg"],
        ["2", B64, "Q3? Please answer yes or no.", "No", "existence", ""],
        ["3", "2", "Q4? Please answer yes or no.", "Yes", "existence", ""],
    ])
    samples = MMEBenchmark().load(path).samples
    assert [s.id for s in samples] == ["OCR/0001.jpg/q0", "OCR/0001.jpg/q1", "existence/index-2/q0",
                                       "existence/index-2/q1"]
    assert samples[0].question == 'Is the word "a\tb"? Please answer yes or no.'  # quoted tab survives
    assert samples[1].images[0].load() == PNG * 4  # the reference reuses row 0's image
    assert [s.answer for s in samples] == ["yes", "no", "no", "yes"]


@pytest.mark.parametrize(
    ("rows", "line", "message"),
    [
        ([["0", B64, "Q", "Yes", "OCR", "a.jpg"]], 2, "one Yes and one No"),
        ([["0", B64, "Q", "Yes", "OCR", "a.jpg"], ["1", "0", "Q", "yes", "OCR", "a.jpg"]], 3, "one Yes"),
        ([["0", B64, "Q", "Yes", "OCR", "a.jpg"], ["1", "0", "Q", "Unsure", "OCR", "a.jpg"]], 3, "ground"),
        ([["0", B64, "Q", "Yes", "OCR", "a.jpg", "extra"]], 2, "expected 6 tab-separated fields"),
        ([["0", B64, "Q", "Yes", "Colour", "a.jpg"]], 2, "not an MME subtask"),
        ([["0", "7", "Q", "Yes", "OCR", ""], ["1", B64, "Q", "No", "OCR", ""]], 2, "neither base64"),
    ],
)
def test_bad_tsv(tmp_path: Path, rows: list[list[str]], line: int, message: str) -> None:
    path = write_tsv(tmp_path / "MME.tsv", rows)
    with pytest.raises(UserError, match=message) as caught:
        load_questions(path)
    assert caught.value.file == str(path) and caught.value.line == line


def test_tsv_crlf_and_bom(tmp_path: Path) -> None:
    path = write_tsv(tmp_path / "MME.tsv", [
        ["0", B64, "Q1", "Yes", "OCR", "a.jpg"], ["1", "0", "Q2", "No", "OCR", "a.jpg"]])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    questions = load_questions(path)
    assert [(q.question, q.truth) for q in questions] == [("Q1", "yes"), ("Q2", "no")]


def test_unsupported_path(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_questions(tmp_path / "missing.tsv")
    (tmp_path / "x.csv").write_text("a")
    with pytest.raises(UserError, match=r"release folder or a \.tsv"):
        load_questions(tmp_path / "x.csv")
