"""`mmgauge run --prompt vlmevalkit` asks what VLMEvalKit asks of a VLMEvalKit-layout TSV, and scores the run
as `mmgauge score mmbench` scores the same answers.

VLMEvalKit (open-compass/VLMEvalKit, vlmeval/dataset/image_mcq.py `ImageMCQDataset.build_prompt`) reads the
TSV with pandas and offers the options that are not `pd.isna`, so an option reading "None" is no option; it
infers every row of the file, and `mcq_circular_eval` groups rows by index % 1e6, a group right when every row
it holds is right. The files below are written as VLMEvalKit's TSVs are: the columns index, question, hint,
A-D, answer, category, l2-category, split and image, a group's image as base64 in its first row and as that
row's index in its later copies.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
from mmgauge.store.run_folder import RunFolder

COLUMNS = ["index", "question", "hint", "A", "B", "C", "D", "answer", "category", "l2-category", "split",
           "image"]
STRIDE = 1_000_000
SELECT = "Please select the correct answer from the options above. \n"


def png(colour: str) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def row(index: int, question: str, options: list[str], answer: str, image: str,
        hint: str = "") -> dict[str, str]:
    cells = dict(zip("ABCD", [*options, "", "", ""], strict=False))
    return {"index": str(index), "question": question, "hint": hint, **cells, "answer": answer,
            "category": "attribute_recognition", "l2-category": "finegrained_perception (instance-level)",
            "split": "dev", "image": image}


def copies(g: int, question: str, options: list[str], answer: int, held: int, image: str,
           hint: str = "") -> list[dict[str, str]]:
    """The first `held` circular copies of question `g`, options rotated as MMBench rotates them."""
    letters = "ABCD"
    out = []
    for k in range(held):
        rotated = options[k:] + options[:k]
        right = letters[(answer - k) % len(options)]
        out.append(row(g + k * STRIDE, question, rotated, right, image if k == 0 else str(g), hint))
    return out


def write(path: Path, rows: list[dict[str, str]], extra: dict[str, str] | None = None) -> Path:
    frame = pd.DataFrame(rows)[COLUMNS]
    if extra is not None:
        frame["prediction"] = [extra[r["index"]] for r in rows]
    frame.to_csv(path, sep="\t", index=False)
    return path


def run_records(cli, out: Path, *args: str | Path) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Sample id -> (prompt sent, answer letter of that copy), after a run that must succeed."""
    result = cli("run", "--bench", "mmbench", "--prompt", "vlmevalkit", "--out", out, "--no-cache", *args)
    assert result.code == 0, result.err
    return {r.sample_id: (r.prompt, str(r.metadata["answer"])) for r in RunFolder(out).records("mmbench")}


def plain_file(path: Path) -> Path:
    """No circular copies (mmgauge makes them); question 1's option C reads "None", question 2 reuses the
    image of question 1."""
    return write(path, [
        row(1, "图中的颜色是什么？", ["红色", "蓝色", "None", "绿色"], "D", png("green"), hint="颜色提示"),
        row(2, "Which animal is it?", ["猫", "狗"], "A", "1"),
    ])


def test_vlmevalkit_prompt_leaves_out_an_option_pandas_reads_as_missing_and_rotates_the_other_three(
        tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    sent = run_records(cli, tmp_path / "run", "--model", "mock:D", "--data", plain_file(tmp_path / "q.tsv"))
    assert sorted(sent, key=int) == ["1", "2", "1000001", "1000002", "2000001"]  # 3 copies of question 1
    question = "Hint: 颜色提示\nQuestion: 图中的颜色是什么？\nOptions:\n"
    # Copy 0 is the row as VLMEvalKit sends it: A, B and D, the letters keeping their place; the copies rotate
    # the three texts through those letters, the answer moving with its text.
    assert sent["1"] == (question + "A. 红色\nB. 蓝色\nD. 绿色\n" + SELECT, "D")
    assert sent["1000001"] == (question + "A. 蓝色\nB. 绿色\nD. 红色\n" + SELECT, "B")
    assert sent["2000001"] == (question + "A. 绿色\nB. 红色\nD. 蓝色\n" + SELECT, "A")
    assert all("None" not in prompt for prompt, _ in sent.values())
    assert sent["2"] == ("Question: Which animal is it?\nOptions:\nA. 猫\nB. 狗\n" + SELECT, "A")


def test_literal_options_on_run_keeps_such_an_option_as_text(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    data = plain_file(tmp_path / "q.tsv")
    sent = run_records(cli, tmp_path / "run", "--model", "mock:D", "--data", data, "--literal-options")
    assert sorted(key for key in sent if key.endswith("1")) == ["1", "1000001", "2000001", "3000001"]
    assert "A. 红色\nB. 蓝色\nC. None\nD. 绿色\n" in sent["1"][0]


def legacy_rows() -> list[dict[str, str]]:
    """The legacy MMBench-dev 20230712 layout: some four-option questions hold only 3 circular copies."""
    four = ["猫", "狗", "牛", "狐狸"]
    return [
        *copies(1, "这是什么动物？", four, 0, 4, png("red"), hint="图中有一只动物。"),
        *copies(2, "Is it hot?", ["是", "否"], 1, 2, png("blue")),
        *copies(3, "Which one is empty?", ["a cup", "None", "a box", "a jar"], 2, 4, png("white")),
        *copies(5, "Which colour?", ["红", "绿", "蓝"], 1, 3, png("gray")),
        *copies(34, "哪一个是水果？", ["苹果", "石头", "椅子", "书"], 0, 3, png("yellow")),
        *copies(35, "Which is a bird?", ["cat", "eagle", "fish", "dog"], 1, 3, png("black")),
    ]


def test_legacy_file_runs_every_row_and_scores_as_score_mmbench(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    rows = legacy_rows()
    answers = {r["index"]: r["answer"] for r in rows}
    answers.update({"5": "不确定。", str(35 + STRIDE): "B"})  # unreadable (no judge), and a wrong copy
    data = write(tmp_path / "MMBench_DEV_EN_legacy.tsv", rows)
    predictions = write(tmp_path / "predictions.tsv", rows, answers)

    sent = run_records(cli, tmp_path / "run", "--model", f"replay:{predictions}", "--data", data)
    assert sorted(sent, key=int) == sorted(answers, key=int)  # every row present, and no other
    assert sum(1 for key in sent if int(key) % STRIDE == 34) == 3
    # Group 3's option "None" is left out of every copy, wherever the rotation put it.
    group3 = [prompt for key, (prompt, _) in sent.items() if int(key) % STRIDE == 3]
    assert len(group3) == 4 and all("None" not in prompt and "a cup" in prompt for prompt in group3)

    results = RunFolder(tmp_path / "run").read_results()
    assert results is not None
    ran = results.benchmarks["mmbench"].result_as(MMBenchResult)
    scored = cli("score", "mmbench", predictions, "--json")
    assert scored.code == 0, scored.err
    expected = json.loads(scored.out)
    assert ran.groups == expected["groups"] == {"1": 1, "2": 1, "3": 1, "5": 0, "34": 1, "35": 0}
    assert ran.overall == pytest.approx(expected["overall"]) == pytest.approx(4 / 6)
    assert ran.vanilla == pytest.approx(expected["vanilla"]) == pytest.approx(5 / 6)
    assert ran.incomplete_groups == 0 and ran.short_groups == 2
    assert any(line.startswith("2 question groups hold fewer circular copies than options")
               for line in ran.headline())


def test_an_answer_naming_the_left_out_option_is_offered_by_no_copy(tmp_path: Path) -> None:
    from mmgauge.benchmarks.mmbench.bench import load_circular

    data = write(tmp_path / "q.tsv", [row(1, "Which?", ["red", "blue", "None", "green"], "C", png("red"))])
    table = load_circular(data, drop_missing=True)
    assert table.index.tolist() == [1, 1_000_001, 2_000_001]
    assert table.options.tolist() == [["red", "blue", "", "green"], ["blue", "green", "", "red"],
                                      ["green", "red", "", "blue"]]
    # VLMEvalKit asks with A, B and D and counts the answer C wrong whatever the answer: so does every copy.
    assert table.answer.tolist() == ["C", "C", "C"]
