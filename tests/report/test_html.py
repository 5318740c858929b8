"""The report page as text: sections, escaping, CSP, leaderboard, comparison, fallbacks, General-Level."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from click.testing import CliRunner

from mmgauge.report import build_report, write_report
from mmgauge.report.assets import JS
from mmgauge.report.browser import CHUNK, build_browser, json_block
from mmgauge.report.load import load_runs

LEVEL_FIXTURE = (
    Path(__file__).resolve().parents[1] / "fixtures" / "general_level" / "Qwen2.5-7B-Instruct_result.xlsx"
)


def _outcomes(run: Path) -> dict[tuple[str, str, int], str]:
    out = {}
    for line in (run / "scored.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        state = "failed" if r["response"]["error"] else str(r["correct"])
        out[(r["benchmark"], r["sample_id"], r["round"])] = state
    return out


def test_hostile_text_is_escaped_everywhere(hostile_run: Path, payloads: tuple[str, ...]) -> None:
    html = build_report([hostile_run], images=False).html
    for payload in payloads:
        assert payload not in html
        assert payload.replace("\u2028", "") not in html
    # The only executable script is ours; every other script element is an inert JSON block.
    scripts = re.findall(r"<script([^>]*)>", html)
    assert scripts.count("") == 1
    assert all('type="application/json"' in attrs for attrs in scripts if attrs)
    # The CSP allows exactly our script by hash and only data: images.
    digest = base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
    assert f"script-src &#x27;sha256-{digest}&#x27;" in html
    assert "img-src data:" in html
    # Unknown benchmark and a result that does not fit its model: generic section with a note, not a crash.
    assert "evil&quot;&#x27;&gt;&lt;svg" in html
    assert "does not match the MMBench result model" not in html  # categories are free-form, still valid


def test_json_blocks_cannot_close_their_element() -> None:
    block = json_block("x", ["</script><script>alert(1)</script>", "a & b", "\u2028"])
    body = block[len('<script type="application/json" id="x">'): -len("</script>")]
    assert "<" not in body and ">" not in body and "&" not in body
    assert json.loads(body) == ["</script><script>alert(1)</script>", "a & b", "\u2028"]


def test_single_run_sections_and_mme_bias(runs: tuple[Path, Path]) -> None:
    report = build_report([runs[0]])
    html = report.html
    for anchor in ("run1", "run1-mme", "run1-mmbench", "browser"):
        assert f'id="{anchor}"' in html
    assert 'id="leaderboard"' not in html and 'id="compare"' not in html
    assert "Answer bias: of the answers read as yes or no, 100% were &#x27;yes&#x27;" in html
    assert html.count('<img class="chart"') >= 4
    assert "Extraction provenance" in html and "Run manifest" in html
    assert "data:image/jpeg;base64," in html  # thumbnails of the built-in sample images
    names = {t.name for t in report.tables}
    assert {"run1_mme_subtasks", "run1_mme_totals", "run1_mmbench_l2", "run1_mmbench_l3", "run1_manifest",
            "run1_datasets", "run1_mme_provenance"} <= names


def test_m3gia_section(runs: tuple[Path, Path]) -> None:
    runs_seen = load_runs([runs[1]])
    if "m3gia" not in runs_seen[0].benchmarks:
        return  # M3GIA is not registered in this checkout
    html = build_report([runs[1]], images=False).html
    assert 'id="run1-m3gia"' in html
    assert "M3GIA factor accuracy by language" in html
    assert "human averages as GIA per language" in html


def test_two_runs_leaderboard_and_changed_samples(runs: tuple[Path, Path]) -> None:
    report = build_report(list(runs), images=False)
    tables = {t.name: t for t in report.tables}
    board = tables["leaderboard"]
    assert board.sortable and [row[0] for row in board.rows] == ["mock:Yes", "mock:A"]
    assert "MME perception" in board.columns and "MMBench circular %" in board.columns
    a, b = _outcomes(runs[0]), _outcomes(runs[1])
    changed = {key for key in a.keys() & b.keys() if a[key] != b[key]}
    assert len(tables["changed_1_vs_2"].rows) == len(changed) > 0
    assert {(r[0], r[1], r[2]) for r in tables["changed_1_vs_2"].rows} == changed
    assert 'class="sortable"' in report.html


def test_browser_index_is_columnar_and_chunked(runs: tuple[Path, Path]) -> None:
    views = load_runs(list(runs))
    rows = sum(len(b.rows) for v in views for b in v.benchmarks.values())
    data = build_browser(views, None)
    assert data.rows == rows
    index = json.loads(re.sub(r"^<script[^>]*>|</script>$", "", data.blocks[0]))
    assert all(len(index[col]) == rows for col in ("run", "bench", "cat", "out", "prov", "img", "chg"))
    assert len(data.blocks) == 1 + -(-rows // CHUNK)
    assert sum(index["chg"]) > 0


def test_general_level_report_json_alone_and_beside_a_run(runs: tuple[Path, Path], tmp_path: Path) -> None:
    from mmgauge.cli.tree import mounted_app

    result = CliRunner().invoke(mounted_app(), ["score", "level", str(LEVEL_FIXTURE), "--json"])
    assert result.exit_code == 0, result.output
    level = tmp_path / "level.json"
    level.write_text(result.stdout, encoding="utf-8")
    html = build_report([level], images=False).html
    assert 'id="run1-general_level"' in html and "highest level reached" in html
    assert "Qwen2.5-7B-Instruct" in html

    run = tmp_path / "run"
    run.mkdir()
    for name in ("manifest.json", "results.json", "scored.jsonl"):
        (run / name).write_bytes((runs[0] / name).read_bytes())
    (run / "general-level.json").write_text(result.stdout, encoding="utf-8")
    html = build_report([run], images=False).html
    assert 'id="run1-general_level"' in html and 'id="run1-mme"' in html


def test_write_report_exports_csv_and_xlsx(runs: tuple[Path, Path], tmp_path: Path) -> None:
    from openpyxl import load_workbook

    out = write_report(list(runs), tmp_path / "r" / "report.html", csv_dir=tmp_path / "csv",
                       xlsx=tmp_path / "tables.xlsx", images=False)
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    csvs = {p.stem for p in (tmp_path / "csv").glob("*.csv")}
    assert {"leaderboard", "changed_1_vs_2", "run1_mme_subtasks", "run2_mmbench_l3"} <= csvs
    book = load_workbook(tmp_path / "tables.xlsx", read_only=True)
    assert "leaderboard" in book.sheetnames and all(len(name) <= 31 for name in book.sheetnames)
