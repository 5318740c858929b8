"""Reading run folders (errors name the file, torn lines, fallbacks) and table export safety."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from mmgauge.core.errors import UserError
from mmgauge.parts.report.tables import Table, table_html, write_csv, write_xlsx
from mmgauge.report.load import load_run
from mmgauge.report.provenance import provenance


def _copy(run: Path, dest: Path) -> Path:
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns("sample-data"))
    return dest


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a run folder"):
        load_run(tmp_path)
    with pytest.raises(UserError, match="no such run folder"):
        load_run(tmp_path / "missing")
    (tmp_path / "x.json").write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(UserError, match="not a General-Level report"):
        load_run(tmp_path / "x.json")


def test_bad_manifest_names_file_and_field(runs: tuple[Path, Path], tmp_path: Path) -> None:
    run = _copy(runs[0], tmp_path / "run")
    data = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    del data["model"]
    (run / "manifest.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserError) as err:
        load_run(run)
    assert "manifest.json" in str(err.value) and "model" in str(err.value)


def test_torn_last_line_is_skipped_and_a_bad_middle_line_is_an_error(runs: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    run = _copy(runs[0], tmp_path / "run")
    lines = (run / "scored.jsonl").read_text(encoding="utf-8").splitlines()
    (run / "scored.jsonl").write_text("\n".join(lines) + '\n{"benchmark": "mme", "sam', encoding="utf-8")
    view = load_run(run)
    assert sum(len(b.rows) for b in view.benchmarks.values()) == len(lines)
    (run / "scored.jsonl").write_text("\n".join([lines[0], "{oops", *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"scored.jsonl:2"):
        load_run(run)


def test_unscored_run_falls_back_to_the_raw_log(runs: tuple[Path, Path], tmp_path: Path) -> None:
    run = _copy(runs[0], tmp_path / "run")
    (run / "scored.jsonl").unlink()
    (run / "results.json").unlink()
    view = load_run(run)
    assert any("results.json is missing" in note for note in view.notes)
    assert any("scored.jsonl is missing" in note for note in view.notes)
    assert view.benchmarks["mme"].rows and view.benchmarks["mme"].result is None
    from mmgauge.report import build_report

    assert "no scored result for this benchmark" in build_report([run], images=False).html


def test_provenance_classes(runs: tuple[Path, Path]) -> None:
    view = load_run(runs[0])
    mme = view.benchmarks["mme"].rows
    assert {provenance(row) for row in mme} == {"rules"}
    assert {provenance(row) for row in view.benchmarks["mmbench"].rows} == {"unresolved"}


FORMULAS = ["=HYPERLINK(\"http://x\")", "+1+2", "-3+cmd", "@SUM(A1)", "plain"]


def test_exports_defuse_formulas(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    table = Table("answers", ["=col", "n"], [[text, -1.5] for text in FORMULAS])
    [path] = write_csv([table], tmp_path / "csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["'=col", "n"]
    assert [r[0] for r in rows[1:]] == ["'" + t if t != "plain" else t for t in FORMULAS]
    assert rows[1][1] == "-1.5"  # numbers stay numbers
    write_xlsx([table, Table("answers", ["a"], []), Table("x" * 40, ["a"], [])], tmp_path / "t.xlsx")
    book = load_workbook(tmp_path / "t.xlsx")
    sheet = book["answers"]
    assert all(cell.data_type == "s" for cell in sheet["A"])
    assert sheet["A2"].value == "'" + FORMULAS[0] and sheet["B2"].value == -1.5
    assert len(set(book.sheetnames)) == 3 and all(len(n) <= 31 for n in book.sheetnames)


def test_html_table_escapes_and_marks_numbers() -> None:
    html = table_html(Table("t", ["<h>"], [["<b>x</b>"], [2.5], [None]], sortable=True))
    assert "<b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html and "&lt;h&gt;" in html
    assert 'data-v="2.5"' in html and 'class="sortable"' in html and "–" in html


def test_result_of_another_schema_gets_the_generic_section(runs: tuple[Path, Path], tmp_path: Path) -> None:
    from mmgauge.report import build_report

    run = _copy(runs[0], tmp_path / "run")
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    del results["benchmarks"]["mme"]["result"]["perception"]
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    html = build_report([run], images=False).html
    assert "does not match the MME result model" in html
    assert "All result values" in html and 'id="run1-mmbench"' in html


def test_stray_json_files_are_ignored_with_a_note(runs: tuple[Path, Path], tmp_path: Path) -> None:
    from mmgauge.report import build_report

    run = _copy(runs[0], tmp_path / "run")
    (run / "broken.json").write_text('{"highest_level": ', encoding="utf-8")
    (run / "notes.json").write_text('{"a": 1}', encoding="utf-8")
    (run / "odd.json").write_bytes(b"\xff\xfe not utf-8")
    view = load_run(run)
    assert "general_level" not in view.benchmarks and "mme" in view.benchmarks
    ignored = {note.split(" ")[0] for note in view.notes if " ignored: " in note}
    assert ignored == {"broken.json", "notes.json", "odd.json"}
    html = build_report([run], images=False).html
    assert "broken.json ignored: not readable as JSON" in html and 'id="run1-mme"' in html
