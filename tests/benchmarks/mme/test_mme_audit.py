"""Audit fixes: nothing in MME input is silently ignored or merged; `score mme RUN` reads judged records."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from mmgauge.benchmarks.mme.bench import MMEBenchmark
from mmgauge.benchmarks.mme.data import load_questions
from mmgauge.benchmarks.mme.official import read_results_folder
from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError
from mmgauge.testing.toy import tiny_png

B64 = base64.b64encode(tiny_png(0) * 4).decode()
PAIR = "a.jpg\tQ1\tYes\tyes\na.jpg\tQ2\tNo\tno\n"


def app() -> click.Group:
    return mounted_app()


def release(tmp_path: Path, subtask: str = "count") -> Path:
    folder = tmp_path / "release" / subtask
    folder.mkdir(parents=True)
    (folder / "0001.jpg").write_bytes(tiny_png(0))
    (folder / "0001.txt").write_text("Two? Please answer yes or no.\tYes\nOne? Answer yes or no.\tNo\n")
    return folder.parent


def test_results_files_with_upper_case_suffix_are_read(tmp_path: Path) -> None:
    (tmp_path / "count.TXT").write_text(PAIR)
    (tmp_path / "OCR.txt").write_text(PAIR)
    assert {item.subtask for item in read_results_folder(tmp_path, "official")} == {"count", "OCR"}


def test_two_results_files_for_one_subtask(tmp_path: Path) -> None:
    (tmp_path / "count.TXT").write_text(PAIR)
    (tmp_path / "count.txt").write_text(PAIR)
    with pytest.raises(UserError, match="two results files for subtask count"):
        read_results_folder(tmp_path, "official")


def test_empty_results_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "count.txt").write_text(PAIR)
    (tmp_path / "OCR.txt").write_text("")
    with pytest.raises(UserError, match="empty results file") as caught:
        read_results_folder(tmp_path, "official")
    assert caught.value.file == str(tmp_path / "OCR.txt")


def test_results_folder_extras_are_noted(tmp_path: Path) -> None:
    (tmp_path / "count.txt").write_text(PAIR)
    (tmp_path / "eval.py").write_text("")
    result = CliRunner().invoke(app(), ["score", "mme", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    assert "not read (not <subtask>.txt results files): eval.py" in result.stderr


def test_release_extra_folders_are_noted_not_fatal(tmp_path: Path) -> None:
    root = release(tmp_path)
    (root / "eval_tool").mkdir()
    (root / "readme.md").write_text("")
    bench = MMEBenchmark()
    assert len(bench.load(root).samples) == 2
    notes = [value for name, value in bench.summary(bench.score([])) if name == "MME note"]
    assert notes == ["not read (not MME subtask folders): eval_tool/, readme.md"]


def test_two_release_folders_for_one_subtask(tmp_path: Path) -> None:
    root = release(tmp_path, "existence")
    release(tmp_path, "EXISTENCE")
    with pytest.raises(UserError) as caught:
        load_questions(root)
    assert "'EXISTENCE' and 'existence'" in str(caught.value)


def test_duplicate_tsv_index(tmp_path: Path) -> None:
    path = tmp_path / "MME.tsv"
    rows = [["0", B64, "Q1", "Yes", "OCR"], ["1", "0", "Q2", "No", "OCR"],
            ["0", B64, "Q3", "Yes", "count"], ["3", "0", "Q4", "No", "count"]]
    path.write_text("index\timage\tquestion\tanswer\tcategory\n" + "".join("\t".join(r) + "\n" for r in rows))
    with pytest.raises(UserError) as caught:
        load_questions(path)
    assert (caught.value.line, caught.value.field) == (4, "index")
    assert "index 0 occurs twice (lines 2 and 4)" in str(caught.value)


def test_score_run_folder_uses_the_judged_records(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = cli("run", "--bench", "mme", "--model", "mock:Maybe so", "--parser", "words",
               "--judge", "mock:Yes", "--no-cache", "--out", out)
    assert done.code == 0, done.out + done.err
    result = json.loads((out / "results.json").read_text())["benchmarks"]["mme"]["result"]
    expected = {"perception": result["perception"]["score"], "cognition": result["cognition"]["score"],
                "subtasks": {name: {key: s[key] for key in ("acc", "acc_plus", "score", "other", "yes_ratio")}
                             for name, s in result["subtasks"].items()}}
    scored = CliRunner().invoke(app(), ["score", "mme", str(out), "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout) == expected
    assert expected["perception"] > 0  # the judge read every "Maybe so" as yes
    (out / "scored.jsonl").unlink()
    raw = CliRunner().invoke(app(), ["score", "mme", str(out), "--json"])
    assert "no scored.jsonl" in raw.stderr
