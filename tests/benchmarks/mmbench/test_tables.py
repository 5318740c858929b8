"""Reading MMBench-form TSVs: lazy images, circular copies found or made, bad input named by row/column."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mmbench.circular import circular_table
from mmgauge.benchmarks.mmbench.tsv import image_refs, load_table
from mmgauge.core.errors import UserError


def png() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "red").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def plain_rows() -> list[dict[str, str]]:
    image = png()
    return [
        {
            "index": "1",
            "question": "Q1?",
            "hint": "",
            "A": "cat",
            "B": "dog",
            "C": "cow",
            "D": "",
            "answer": "B",
            "category": "ocr",
            "l2-category": "coarse_perception",
            "split": "dev",
            "image": image,
        },
        {
            "index": "2",
            "question": "Q2?",
            "hint": "h",
            "A": "None",
            "B": "NA",
            "C": "",
            "D": "",
            "answer": "A",
            "category": "ocr",
            "l2-category": "coarse_perception",
            "split": "dev",
            "image": "1",
        },
    ]


def write(tmp_path: Path, rows: list[dict[str, str]], name: str = "data.tsv") -> Path:
    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return path


def test_plain_tsv_gets_one_copy_per_rotation(tmp_path: Path) -> None:
    table = circular_table(load_table(write(tmp_path, plain_rows()), need_image=True))
    assert sorted(table.index.tolist()) == [1, 2, 1000001, 1000002, 2000001]
    row = table.index.tolist().index(1000001)
    assert table.options[row, :3].tolist() == ["dog", "cow", "cat"]
    assert table.answer[row] == "A"  # dog moved from B to A
    two = table.index.tolist().index(1000002)
    assert table.options[two, :2].tolist() == ["NA", "None"]  # "None" and "NA" are options, not missing
    assert table.answer[two] == "B"


def test_images_stay_base64_and_references_resolve(tmp_path: Path) -> None:
    table = load_table(write(tmp_path, plain_rows()), need_image=True)
    images = image_refs(table, tmp_path)
    assert images[1].origin_field == "image" and images[1].b64 == images[0].b64  # row 2 reuses row 1's image
    assert images[1].data is None
    assert images[1].load()[:4] == b"\x89PNG"


def test_image_path_is_relative_to_the_tsv(tmp_path: Path) -> None:
    Image.new("RGB", (4, 4)).save(tmp_path / "a.png")
    rows = plain_rows()
    for row in rows:
        row.pop("image")
        row["image_path"] = "a.png"
    table = load_table(write(tmp_path, rows), need_image=True)
    assert image_refs(table, tmp_path)[0].path == str(tmp_path / "a.png")


def test_broken_base64_named_when_decoding(tmp_path: Path) -> None:
    rows = plain_rows()
    rows[0]["image"] = "!" * 100
    dataset = MMBenchBenchmark().load(write(tmp_path, rows))  # loading does not decode
    with pytest.raises(UserError) as caught:
        dataset.samples[0].images[0].load()
    assert caught.value.line == 2 and caught.value.field == "image" and "base64" in str(caught.value)
    rows[0]["image"] = base64.b64encode(b"not an image at all, just some bytes" * 3).decode()
    dataset = MMBenchBenchmark().load(write(tmp_path, rows))
    with pytest.raises(UserError, match="not an image"):
        dataset.samples[0].images[0].sha256()


@pytest.mark.parametrize(
    ("change", "line", "field", "words"),
    [
        (lambda rows: [row.pop("question") for row in rows], None, None, "missing required column"),
        (lambda rows: rows[1].update(answer="D"), 3, "answer", "not one of the options A-B"),
        (lambda rows: rows[1].update(index="1"), 3, "index", "occurs twice"),
        (lambda rows: rows[0].update(B="", D="x"), 2, "B", "option B is empty"),
        (lambda rows: rows[1].update(index="x2"), 3, "index", "not a whole number"),
        (lambda rows: rows[1].update(image="99"), 3, "image", "not in the file"),
    ],
)
def test_bad_input_names_row_and_column(
    tmp_path: Path, change: object, line: int | None, field: str | None, words: str
) -> None:
    rows = plain_rows()
    change(rows)  # type: ignore[operator]
    with pytest.raises(UserError) as caught:
        MMBenchBenchmark().load(write(tmp_path, rows))
    assert (caught.value.line, caught.value.field) == (line, field)
    assert words in str(caught.value)


def circular_rows() -> list[dict[str, str]]:
    base = plain_rows()[0]
    rows = [dict(base)]
    for k, (a, b, c, answer) in enumerate([("dog", "cow", "cat", "A"), ("cow", "cat", "dog", "C")], start=1):
        rows.append(dict(base, index=str(1 + k * 1_000_000), A=a, B=b, C=c, answer=answer, image="1"))
    return rows


def test_existing_copies_are_verified_not_remade(tmp_path: Path) -> None:
    table = circular_table(load_table(write(tmp_path, circular_rows()), need_image=True))
    assert table.index.tolist() == [1, 1000001, 2000001]


def test_other_rotation_direction_is_accepted(tmp_path: Path) -> None:
    rows = circular_rows()
    rows[1].update(A="cow", B="cat", C="dog", answer="C")
    rows[2].update(A="dog", B="cow", C="cat", answer="A")
    assert len(circular_table(load_table(write(tmp_path, rows)))) == 3


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda rows: rows[2].update(A="cat", B="cow", C="dog"), "A", "rotated"),
        (lambda rows: rows[1].update(answer="B"), "answer", "rotated"),
        (lambda rows: rows.pop(2), "index", "needs 3"),
        (lambda rows: rows[1].update(question="other"), "question", "differs"),
        (lambda rows: rows.pop(0), "index", "no first copy"),
    ],
)
def test_bad_copies(tmp_path: Path, change: object, field: str, words: str) -> None:
    rows = circular_rows()
    change(rows)  # type: ignore[operator]
    with pytest.raises(UserError) as caught:
        circular_table(load_table(write(tmp_path, rows)))
    assert caught.value.field == field and words in str(caught.value)


@pytest.mark.parametrize("lines", [1, 6])
def test_rows_longer_than_a_read_block_are_read_on_one_line_or_over_several(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: int
) -> None:
    """One long line (a large base64 image) is read with blocks sized by the longest line; a row whose quoted
    line breaks make it cross two such blocks (pyarrow reads a row over one boundary, not two) needs the
    row-by-row measure, and gets it."""
    from mmgauge.benchmarks.mmbench import tsv

    measured: list[int] = []
    exact = tsv.block_size_for
    monkeypatch.setattr(tsv, "block_size_for", lambda *a: measured.append(1) or exact(*a))
    long = "\n".join(["x" * (1200 * 1024)] * lines)  # longer than pyarrow's 1 MB block, on 1 or 6 lines
    rows = plain_rows()
    rows[1]["hint"] = long
    table = load_table(write(tmp_path, rows), need_image=True)
    assert table.text("hint").tolist() == ["", long] and table.index.tolist() == [1, 2]
    assert len(measured) == (lines > 1)


def test_loading_a_run_s_data_does_not_import_pandas(tmp_path: Path) -> None:
    """pandas costs a third of a second of a run's start-up, and only writing the built-in sample needs it."""
    import subprocess
    import sys

    data = write(tmp_path, plain_rows())
    script = ("import sys\nfrom pathlib import Path\nfrom mmgauge.benchmarks.registry import get_benchmark\n"
              "bench = get_benchmark('mmbench')\n"
              "bench.build_messages(bench.load(Path(sys.argv[1])).samples[0])\n"
              "print('pandas' in sys.modules)\n")
    found = subprocess.run([sys.executable, "-c", script, str(data)], capture_output=True, text=True,
                           check=True)
    assert found.stdout.strip() == "False"


def test_the_quick_block_size_holds_the_longest_line_wherever_lines_cross_read_blocks(tmp_path: Path) -> None:
    from mmgauge.benchmarks.mmbench.tsv_diagnostics import line_block_size

    def expected(data: bytes) -> int:
        longest = max((len(line) for line in data.splitlines(keepends=True)), default=0)
        return max(1 << 20, 2 * longest + 4096)

    path = tmp_path / "lines.tsv"
    mib = 1 << 20
    for lengths in ([], [5], [mib - 1, 3 * mib + 7, 10], [2 * mib, mib], [mib + 1] * 3, [100] * 50):
        for last_newline in (True, False):
            data = b"\n".join(b"x" * n for n in lengths) + (b"\n" if last_newline and lengths else b"")
            path.write_bytes(data)
            assert line_block_size(path) == expected(data), (lengths, last_newline)
