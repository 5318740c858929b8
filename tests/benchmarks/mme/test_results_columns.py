"""An official results folder read column-wise scores exactly as the line-by-line reading does."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mmgauge.benchmarks.mme.answers import score_mme as score_source
from mmgauge.benchmarks.mme.official import read_results_folder, results_files
from mmgauge.benchmarks.mme.results_columns import read_results_columns
from mmgauge.benchmarks.mme.scoring import score_mme, score_mme_columns
from mmgauge.core.errors import UserError

TEMPLATE = Path(__file__).resolve().parents[2] / "fixtures" / "mme" / "official_template"
ANSWERS = ["Yes", "No", "yes", "no", "YES", " yes", "  yes", "yes\u00a0", "Yes, there is.", "No, it is not.",
           "Not sure.", "none", "I don't know.", "", "yesterday", "nope", "Ｙes", "İyes", "no and yes",
           "both yes and no", "答案: yes", "ye", "n", "YeS!", "yes yes"]


def write_folder(folder: Path, seed: int, subtasks: int) -> None:
    rng = random.Random(seed)
    folder.mkdir()
    for template in sorted(TEMPLATE.glob("*.txt"))[:subtasks]:  # a partial run: some subtasks only
        lines = [line.split("\t") for line in template.read_text(encoding="utf-8").splitlines() if line]
        with (folder / template.name).open("w", encoding="utf-8", newline="") as out:
            for image, question, truth in lines:
                ending = "\r\n" if rng.random() < 0.1 else "\n"
                out.write(f"{image}\t{question}\t{truth}\t{rng.choice(ANSWERS)}{ending}")


@pytest.mark.parametrize("parser", ["official", "words"])
@pytest.mark.parametrize("subtasks", [14, 5])
def test_column_reading_scores_as_the_line_reading(tmp_path: Path, parser: str, subtasks: int) -> None:
    folder = tmp_path / "results"
    write_folder(folder, subtasks, subtasks)
    columns = read_results_columns(results_files(folder), parser)
    assert columns is not None
    expected = score_mme(read_results_folder(folder, parser), parser=parser)
    assert score_mme_columns(columns, parser=parser).model_dump() == expected.model_dump()
    assert expected.other > 0 and len(expected.subtasks) == subtasks


def test_an_irregular_folder_is_read_line_by_line(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    write_folder(folder, 1, 14)
    ocr = folder / "OCR.txt"
    lines = ocr.read_text(encoding="utf-8").splitlines(keepends=True)
    ocr.write_text("".join([*lines[:3], "\n", *lines[3:]]), encoding="utf-8")  # an empty line inside
    assert read_results_columns(results_files(folder), "official") is None
    with pytest.raises(UserError, match=r"OCR\.txt:4.*empty line"):
        score_source(folder)


def test_a_folder_the_line_reader_reads_is_scored_column_wise(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte-order mark, CR line ends and empty lines at the end are no error: the files are read again as
    the line reader splits them, and scored column-wise as the line reading scores them."""
    from mmgauge.benchmarks.mme import answers

    folder = tmp_path / "results"
    write_folder(folder, 3, 14)
    ocr, count = folder / "OCR.txt", folder / "count.txt"
    lines = ocr.read_bytes().replace(b"\r\n", b"\n")
    ocr.write_bytes(b"\xef\xbb\xbf" + lines.replace(b"\n", b"\r") + b"\n\n")
    count.write_bytes(count.read_bytes() + b"\n\n")
    assert read_results_columns(results_files(folder), "official") is None
    monkeypatch.setattr(answers, "columns_of", None)  # never the line reader's items
    expected = score_mme(read_results_folder(folder, "official"), parser="official")
    assert score_source(folder).model_dump() == expected.model_dump()


def test_method_numbers_do_not_depend_on_which_file_is_read_first(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from mmgauge.benchmarks.mme import results_columns

    folder = tmp_path / "results"
    write_folder(folder, 7, 3)
    files = results_files(folder)
    for (path, _), answer in zip(files, ["Yes", "No", "Not sure."], strict=True):
        lines = [line.rsplit("\t", 1)[0] for line in path.read_text(encoding="utf-8").splitlines()]
        path.write_text("".join(f"{line}\t{answer}\n" for line in lines), encoding="utf-8")
    read_file = results_columns._read_file

    def first_file_last(path: Path, parser: str, methods: object, as_lines: bool) -> object:
        if path == files[0][0]:
            time.sleep(0.3)  # the file that names the first method finishes after the others
        return read_file(path, parser, methods, as_lines)  # type: ignore[arg-type]

    monkeypatch.setattr(results_columns, "_read_file", first_file_last)
    forward = read_results_columns(files, "words")
    backward = read_results_columns(files[::-1], "words")
    assert forward is not None and backward is not None
    # Names are numbered in order of first appearance in the files as given, whichever finished first.
    assert forward.method_names == ("words", "words-unknown")
    assert backward.method_names == ("words-unknown", "words")
    names = [forward.method_names[code] for code in forward.method]
    last = len(files[-1][0].read_text(encoding="utf-8").splitlines())
    assert names[-last:] == ["words-unknown"] * last and set(names[:-last]) == {"words"}
