"""Packed inputs held to caps: a workbook zip bomb (a sheet of a million repeated rows, deflated into 458 KB)
is refused from its zip directory in an instant, one line naming the cap and how to raise it; a directory that
lies about sizes gets no further; parquet is held to the same caps."""

from __future__ import annotations

import re
import struct
import time
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

SHEET = "xl/worksheets/sheet1.xml"


def zip_bomb(tmp_path: Path, rows: int = 1_000_000) -> Path:
    """A workbook pandas wrote, its sheet's data row repeated `rows` times and deflated (written in chunks,
    so the test never holds the whole sheet)."""
    whole = tmp_path / "whole.xlsx"
    pd.DataFrame({"index": [0], "question": ["q"], "prediction": ["A"]}).to_excel(whole, index=False)
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(whole) as source, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED,
                                                           compresslevel=9) as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename != SHEET:
                out.writestr(info.filename, data)
                continue
            sheet = re.sub(r'<dimension ref="[^"]*"/>', "", data.decode("utf-8"))
            found = re.search(r'<row r="2".*?</row>', sheet)
            assert found is not None
            with out.open(SHEET, "w", force_zip64=True) as member:
                member.write(sheet[: found.start()].encode())
                # Without `r` attributes each repeat is the next row (as readers number unnumbered rows).
                row = re.sub(r' r="[A-Z]*2"', "", found.group(0))
                chunk = row.encode() * 10_000
                for _ in range(rows // 10_000):
                    member.write(chunk)
                member.write(sheet[found.end():].encode())
    return bomb


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return zip_bomb(tmp_path_factory.mktemp("bomb"))


@pytest.mark.parametrize("command", [
    ("run", "--model", "replay:{xlsx}", "--bench", "mmbench", "--limit", "1", "--out", "{tmp}/run"),
    ("score", "mmbench", "{xlsx}"),
    ("score", "mme", "{xlsx}"),
])
def test_a_workbook_zip_bomb_is_refused_from_its_directory(
    cli: Any, tmp_path: Path, bomb: Path, command: tuple[str, ...]
) -> None:
    assert bomb.stat().st_size < 600_000
    started = time.monotonic()
    line = cli(*[part.format(xlsx=bomb, tmp=tmp_path) for part in command]).error_line()
    assert time.monotonic() - started < 5
    assert f"{bomb}: member {SHEET} unpacks " in line
    assert "over the unpacking ratio cap of 100; if the file is trusted, raise it with " \
           "`mmgauge --max-input-ratio ...` (API: input_limits(max_ratio=...))" in line


def test_the_other_caps_name_their_options(cli: Any, tmp_path: Path, bomb: Path) -> None:
    run = ("run", "--model", f"replay:{bomb}", "--bench", "mmbench", "--limit", "1", "--out", tmp_path / "r")
    started = time.monotonic()
    line = cli("--max-input-ratio", "1000", *run, "--max-input-rows=1000").error_line()
    assert time.monotonic() - started < 5  # pandas stops one row past the cap
    assert f"{bomb}: more than 1,000 rows: over the rows cap of 1,000; " in line
    assert "`mmgauge --max-input-rows ...` (API: input_limits(max_rows=...))" in line
    line = cli("--max-input-size", "64M", "--max-input-ratio", "1000", *run).error_line()
    assert f"{bomb}: unpacks to more than 64 MiB: over the unpacked size cap of 64 MiB; " in line
    assert "`mmgauge --max-input-size ...` (API: input_limits(max_bytes=...))" in line
    assert "--max-input-size': expected a size such as 8G or 500M, not 'lots'" in cli(
        "--max-input-size", "lots", *run).error_line()


def test_a_directory_that_lies_about_sizes_gets_no_further(cli: Any, tmp_path: Path, bomb: Path) -> None:
    data = bytearray(bomb.read_bytes())
    name = SHEET.encode()
    # The member's central directory entry and its local header both say it unpacks to 64 KB.
    for signature, offset in ((b"PK\x01\x02", 46), (b"PK\x03\x04", 30)):
        start = data.find(signature)
        while data[start + offset: start + offset + len(name)] != name:
            start = data.find(signature, start + 1)
        size_at = start + (24 if signature == b"PK\x01\x02" else 22)
        if struct.unpack_from("<I", data, size_at)[0] == 0xFFFFFFFF:
            continue  # zip64: the real size is in the extra field, which zipfile reads instead
        struct.pack_into("<I", data, size_at, 65536)
    liar = tmp_path / "liar.xlsx"
    liar.write_bytes(bytes(data))
    with zipfile.ZipFile(liar) as archive:
        assert archive.getinfo(SHEET).file_size == 65536
    started = time.monotonic()
    line = cli("score", "mmbench", liar).error_line()
    assert time.monotonic() - started < 5
    assert f"{liar}: cannot read the workbook (damaged, truncated or not .xlsx)" in line


def test_parquet_rows_over_the_cap(cli: Any, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    # M3GIA's release layout (index, question, hint, A-F, image, QuestionTypes), three questions.
    rows = [{"index": i, "question": "2, 4, 8, ?", "hint": None, "A": "16", "B": "12", "image": None,
             "QuestionTypes": "Number Series"} for i in (211, 212, 213)]
    data = tmp_path / "en_final.parquet"
    pq.write_table(pa.Table.from_pylist(rows), data)
    line = cli("--max-input-rows", "2", "run", "--model", "mock:A", "--bench", "m3gia", "--data", data,
               "--out", tmp_path / "run").error_line()
    assert f"{data}: more than 2 rows: over the rows cap of 2; " in line and "--max-input-rows" in line
