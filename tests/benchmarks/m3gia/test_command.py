"""`mmgauge score m3gia` on the release's count workbooks (MLLMs_acc_<lang>_score.xlsx) and on CSV counts."""

from __future__ import annotations

import json
from importlib import resources
from io import StringIO
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from openpyxl import Workbook

PUBLISHED_FIRST_ROW_GIA = 14.8479993764033  # En_mllm_scores.csv, row 1, column Cog (lavPredict)


def release_csv() -> pd.DataFrame:
    cfa = resources.files("mmgauge").joinpath("data").joinpath("m3gia").joinpath("cfa")
    return pd.read_csv(StringIO(cfa.joinpath("en.csv").read_text(encoding="utf-8")))


def release_workbook(path: Path, blank_rows: int = 2) -> Path:
    """The template's layout: subid, the 18 counts, total_acc, then a column with no header holding the
    model's name (pandas reads that header as 'Unnamed: 20'), and blank rows left in the template."""
    frame = release_csv()
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    header = [c if not c.startswith("Unnamed") else None for c in frame.columns]
    sheet.append(header)
    for row in frame.itertuples(index=False):
        sheet.append(list(row))
    for _ in range(blank_rows):
        sheet.append([None] * len(header))
    sheet.cell(row=len(frame) + 2, column=1, value=len(frame) + 1)  # a template row with only its subid
    book.save(path)
    return path


def gia(cli: Any, counts: Path, *extra: str) -> Any:
    return cli("score", "m3gia", "--language", "en", "--counts", counts, "--json", *extra)


def test_release_workbook_is_read_as_the_release_script_reads_it(cli: Any, tmp_path: Path) -> None:
    path = release_workbook(tmp_path / "MLLMs_acc_en_score.xlsx")
    result = gia(cli, path)
    assert result.code == 0, result.err
    rows = json.loads(result.out)["rows"]
    assert len(rows) == 15  # the blank template rows are not models
    assert rows[0]["gia"] == pytest.approx(PUBLISHED_FIRST_ROW_GIA, abs=1e-6)
    same = gia(cli, path, "--ignore", "subid")  # the advice for CSV files works here too
    assert same.code == 0 and json.loads(same.out)["rows"] == rows


def test_workbook_under_a_csv_name_and_plain_csv(cli: Any, tmp_path: Path) -> None:
    disguised = tmp_path / "counts.csv"
    disguised.write_bytes(release_workbook(tmp_path / "book.xlsx").read_bytes())
    result = gia(cli, disguised)
    assert result.code == 0, result.err
    assert json.loads(result.out)["rows"][0]["gia"] == pytest.approx(PUBLISHED_FIRST_ROW_GIA, abs=1e-6)
    plain = tmp_path / "plain.csv"
    release_csv().drop(columns=["subid", "total_acc", "Unnamed: 20"]).to_csv(plain, index=False)
    result = gia(cli, plain)
    assert result.code == 0 and json.loads(result.out)["rows"][0]["gia"] == pytest.approx(
        PUBLISHED_FIRST_ROW_GIA, abs=1e-6)


def test_a_workbook_with_other_columns_must_name_them(cli: Any, tmp_path: Path) -> None:
    frame = release_csv().drop(columns=["Unnamed: 20"])
    frame["notes"] = "x"
    path = tmp_path / "mine.xlsx"
    frame.to_excel(path, index=False)
    assert "field 'subid': unexpected column" in gia(cli, path).error_line()
    result = gia(cli, path, "--ignore", "subid", "--ignore", "total_acc", "--ignore", "notes")
    assert result.code == 0 and len(json.loads(result.out)["rows"]) == 15
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04 not really a workbook")
    assert "broken.xlsx: cannot read the workbook" in gia(cli, broken).error_line()


def awkward_counts_csv(path: Path, rows: int) -> Path:
    """Counts in shuffled column order with an ignored unicode column, CRLF line ends, a quoted cell, rows
    of all zeros and of every maximum, and repeated rows."""
    import random

    from mmgauge.benchmarks.m3gia.gia import load_published_model, question_counts

    rng = random.Random(7)
    indicators = list(load_published_model("en").indicators)
    maxima = question_counts("en")
    order = indicators[:]
    rng.shuffle(order)
    body = [[rng.randint(0, maxima[c]) for c in order] for _ in range(rows)]
    body += [[0] * len(order), [maxima[c] for c in order], body[0], body[0]]
    lines = ["\"modèle ✓\"," + ",".join(order)]
    lines += [f"m{i}," + ",".join(f'"{v}"' if i == 1 and j == 0 else str(v) for j, v in enumerate(row))
              for i, row in enumerate(body)]
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    return path


@pytest.mark.parametrize("scale", ["official", "standardised"])
def test_csv_counts_print_the_reference_json(cli: Any, tmp_path: Path, scale: str) -> None:
    """The column-wise path (pyarrow reading, arrow-joined JSON) prints what the row-wise reference prints:
    pandas reading, `counts_matrix`, a `GiaResult` dumped by json.dumps."""
    from mmgauge.benchmarks.m3gia.counts import human_stats_from_table, read_counts
    from mmgauge.benchmarks.m3gia.gia import compute_gia, load_published_model
    from mmgauge.datasources.text_files import read_csv

    path = awkward_counts_csv(tmp_path / "counts.csv", 60)
    indicators = load_published_model("en").indicators
    extra = ["--ignore", "modèle ✓"]
    stats = None
    if scale == "standardised":
        stats_path = tmp_path / "human.csv"
        stats_path.write_text("column,mean,sd\n" + "".join(f"{c},{2 + i / 3},{1 + i / 7}\n"
                                                           for i, c in enumerate(indicators)))
        stats = human_stats_from_table(read_csv(stats_path), str(stats_path))
        extra += ["--scale", "standardised", "--human-stats", str(stats_path)]
    table, names = read_counts(path, indicators, ["modèle ✓"])
    assert names is None  # the column of names is --ignored
    reference = compute_gia(table, "en", scale, stats)  # type: ignore[arg-type]
    result = gia(cli, path, *extra)
    assert result.code == 0, result.err
    assert result.out == json.dumps(reference.model_dump()) + "\n"


def without_names(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in row.items() if key != "model"} for row in rows]


def text_lines(cli: Any, counts: Path, *extra: str) -> list[str]:
    result = cli("score", "m3gia", "--language", "en", "--counts", counts, *extra)
    assert result.code == 0, result.err
    lines: list[str] = result.out.splitlines()
    return lines


def test_release_workbook_rows_are_named_by_its_last_column(cli: Any, tmp_path: Path) -> None:
    path = release_workbook(tmp_path / "MLLMs_acc_en_score.xlsx")
    names = [f"model{i}" for i in range(1, 16)]
    rows = json.loads(gia(cli, path).out)["rows"]
    assert [row["model"] for row in rows] == names
    anonymous = gia(cli, path, "--ignore", "Unnamed: 20")
    assert anonymous.code == 0, anonymous.err
    unnamed = json.loads(anonymous.out)["rows"]
    assert [row["model"] for row in unnamed] == [None] * 15
    assert without_names(rows) == without_names(unnamed)  # the same numbers
    named, numbered = text_lines(cli, path), text_lines(cli, path, "--ignore", "Unnamed: 20")
    assert named[0] == numbered[0] and named[1].startswith("model1: GIA 14.8480  normalised ")
    assert [line.split(": ", 1) for line in named[1:]] == [
        [name, line.split(": ", 1)[1]] for name, line in zip(names, numbered[1:], strict=True)]


def named_counts_csv(path: Path, names: list[str], last: str = "") -> Path:
    """A CSV of counts with a `Model` column among them, non-ASCII names, one row unnamed; `last` replaces
    the last count of the last row (a whole number written with a point: the reference reading)."""
    frame = release_csv().drop(columns=["subid", "total_acc", "Unnamed: 20"]).round().astype(int)
    frame.insert(3, "Model", names)
    text = frame.to_csv(index=False)
    if last:
        text = text[: text.rstrip("\n").rindex(",") + 1] + last + "\n"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("last", ["", "17.0"])
def test_a_csv_with_a_model_column_names_its_rows(cli: Any, tmp_path: Path, last: str) -> None:
    names = ["Qwen2-VL 七十亿", "  café ✓ ", "", "NA", "007", *(f"modèle {i}" for i in range(10))]
    path = named_counts_csv(tmp_path / "counts.csv", names, last)
    from mmgauge.benchmarks.m3gia.counts import counts_from_csv

    assert (counts_from_csv(path, "en", []) is None) == bool(last)  # both readers are checked
    rows = json.loads(gia(cli, path).out)["rows"]
    expected = ["Qwen2-VL 七十亿", "café ✓", None, "NA", "007", *(f"modèle {i}" for i in range(10))]
    assert [row["model"] for row in rows] == expected
    unnamed = json.loads(gia(cli, path, "--ignore", "Model").out)["rows"]
    assert without_names(rows) == without_names(unnamed)
    lines = text_lines(cli, path)
    assert [line.split(": GIA ")[0] for line in lines[1:4]] == ["Qwen2-VL 七十亿", "café ✓", "row 3"]
    assert [line.split(": GIA ")[1] for line in lines[1:]] == [
        line.split(": GIA ")[1] for line in text_lines(cli, path, "--ignore", "Model")[1:]]


def test_columns_beside_the_names_are_still_refused_in_one_line(cli: Any, tmp_path: Path) -> None:
    names = [f"m{i}" for i in range(15)]
    path = named_counts_csv(tmp_path / "counts.csv", names)
    frame = pd.read_csv(path)
    frame["notes"] = "x"
    frame.to_csv(tmp_path / "notes.csv", index=False)
    assert "field 'notes': unexpected column" in gia(cli, tmp_path / "notes.csv").error_line()
    frame = frame.drop(columns=["notes"])
    frame["name"] = names
    frame.to_csv(tmp_path / "two.csv", index=False)
    line = gia(cli, tmp_path / "two.csv").error_line()
    assert "two columns of model names (Model, name); --ignore one" in line
    assert gia(cli, tmp_path / "two.csv", "--ignore", "name").code == 0
    broken = path.read_text(encoding="utf-8").replace("m4,", '"m4\nrow 99: GIA 100",', 1)
    (tmp_path / "broken.csv").write_text(broken, encoding="utf-8")
    line = gia(cli, tmp_path / "broken.csv").error_line()
    assert "field 'Model': a model name holds a line break or control character" in line
