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

    from mmgauge.scoring.m3gia_gia import load_published_model, question_counts

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
    from mmgauge.api.inputs import human_stats_from_table, read_counts, read_csv
    from mmgauge.scoring.m3gia_gia import compute_gia, load_published_model

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
    table = read_counts(path, indicators, ["modèle ✓"])
    reference = compute_gia(table, "en", scale, stats)  # type: ignore[arg-type]
    result = gia(cli, path, *extra)
    assert result.code == 0, result.err
    assert result.out == json.dumps(reference.model_dump()) + "\n"
