"""Predictions files from other toolkits score as their own toolkit scores them (VLMEvalKit's rules).

Expected numbers are worked out by hand from VLMEvalKit's `mcq_circular_eval` / `report_acc`
(vlmeval/dataset/utils/multiple_choice.py): a group is every row sharing index % 1e6, right when every copy
present is right; Overall is the mean over groups, per split.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mmbench.predictions import load_predictions, score_prediction_file
from mmgauge.cli.tree import mounted_app
from mmgauge.core.errors import UserError

STRIDE = 1_000_000


def group(g: int, options: list[str], answer: int, copies: int, predictions: dict[int, str]) -> list[dict]:
    """Copies 0..copies-1 of one question, options rotated as MMBench rotates them; a copy predicts its right
    letter unless `predictions` says otherwise."""
    letters = "ABCD"
    rows = []
    for k in range(copies):
        rotated = options[k:] + options[:k]
        right = letters[(answer - k) % len(options)]
        row = {"index": g + k * STRIDE, "question": f"Question {g}?"}
        row.update({letter: rotated[i] if i < len(rotated) else None for i, letter in enumerate(letters)})
        row.update({"prediction": predictions.get(k, right), "answer": right, "split": "dev"})
        rows.append(row)
    return rows


def llava_style_xlsx(path: Path) -> Path:
    """The LLaVA authors' MMBench-dev submission layout (scripts/convert_mmbench_for_submission.py): the TSV
    without hint, category, source, image, comment, l2-category, `prediction` inserted as column 7; some
    four-option questions hold only 3 circular copies."""
    four = ["cat", "dog", "cow", "fox"]
    rows = [
        *group(1, four, 0, 4, {}),                       # right
        *group(2, four, 1, 4, {2: "A"}),                 # copy 2 wrong -> group wrong
        *group(3, four, 2, 3, {}),                       # 3 of 4 copies, all right -> right
        *group(4, four, 3, 3, {1: "A"}),                 # 3 of 4 copies, copy 1 wrong (C) -> wrong
        *group(5, ["yes", "no"], 1, 2, {}),              # two options, two copies -> right
        *group(6, ["red", "green", "blue"], 0, 3, {0: "Not sure."}),  # unreadable, no judge -> wrong
        *group(7, four, 1, 3, {}),                       # 3 of 4 copies, all right -> right
    ]
    frame = pd.DataFrame(rows)[["index", "question", "A", "B", "C", "D", "prediction", "answer", "split"]]
    frame.to_excel(path, index=False, engine="openpyxl")
    return path


def test_legacy_llava_file_without_category_and_with_three_copy_groups(tmp_path: Path) -> None:
    path = llava_style_xlsx(tmp_path / "llava-v1.5-13b.xlsx")
    result = asyncio.run(score_prediction_file(path))
    assert result.groups == {"1": 1, "2": 0, "3": 1, "4": 0, "5": 1, "6": 0, "7": 1}
    assert result.overall == pytest.approx(4 / 7) and result.split == {"dev": pytest.approx(4 / 7)}
    assert result.vanilla == pytest.approx(6 / 7)  # first copies: only group 6's is not read as right
    assert result.category == {} and result.l2 == {} and result.incomplete_groups == 0
    assert result.short_groups == 3
    notes = result.headline()
    assert "no category labels in the file: no breakdown by category" in notes
    assert "no l2-category labels in the file: no breakdown by L2" in notes
    assert any(line.startswith("3 question groups hold fewer circular copies than options") for line in notes)
    with pytest.raises(UserError, match="needs 4"):  # the strict reader still refuses it
        load_predictions(path)


def test_score_command_on_the_legacy_file(tmp_path: Path) -> None:
    path = llava_style_xlsx(tmp_path / "llava.xlsx")
    result = CliRunner().invoke(mounted_app(), ["score", "mmbench", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["overall"] == pytest.approx(4 / 7)
    assert "no breakdown by category" in result.stderr


def na_rows() -> list[dict]:
    base = {"question": "Which?", "hint": "", "category": "ocr", "l2-category": "coarse_perception",
            "split": "dev"}
    return [
        dict(base, index=1, A="red", B="blue", C="None", D="green", answer="C", prediction="C"),
        dict(base, index=2, A="NA", B="cat", C="", D="", answer="B", prediction="B"),
        dict(base, index=3, A="dog", B="cat", C="", D="", answer="A", prediction="NA"),
    ]


@pytest.mark.parametrize("suffix", [".xlsx", ".tsv"])
def test_options_pandas_reads_as_missing(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"pred{suffix}"
    frame = pd.DataFrame(na_rows())
    if suffix == ".xlsx":
        frame.to_excel(path, index=False)
    else:
        frame.to_csv(path, sep="\t", index=False)
    # VLMEvalKit: question 1 has options A, B, D (C is NaN), so "C" reads as no option; question 2 keeps
    # only B; question 3's prediction "NA" is the text "nan". Right: question 2 only.
    dropped = asyncio.run(score_prediction_file(path))
    assert dropped.groups == {"1": 0, "2": 1, "3": 0} and dropped.overall == pytest.approx(1 / 3)
    assert (dropped.na_text_questions, dropped.na_text_examples, dropped.na_text_dropped) == (2, [1, 2], True)
    assert any("2 questions have an option whose text pandas reads as missing" in line
               and "e.g. index 1, 2" in line and "--literal-options keeps them" in line
               for line in dropped.headline())
    literal = asyncio.run(score_prediction_file(path, literal_options=True))
    assert literal.groups == {"1": 1, "2": 1, "3": 0} and literal.na_text_questions == 2
    assert any("kept as text (--literal-options)" in line for line in literal.headline())
    runner = CliRunner()
    for flags, overall in (([], 1 / 3), (["--literal-options"], 2 / 3)):
        out = runner.invoke(mounted_app(), ["score", "mmbench", str(path), "--json", *flags])
        assert out.exit_code == 0 and json.loads(out.stdout)["overall"] == pytest.approx(overall)


def sample_predictions(tmp_path: Path) -> pd.DataFrame:
    """The built-in sample with predictions: right everywhere but question group 2 (4 copies)."""
    frame = pd.read_csv(MMBenchBenchmark().sample_data(tmp_path), sep="\t", dtype=str, keep_default_na=False)
    frame["prediction"] = frame["answer"]
    frame.loc[frame["g_index"] == "2", "prediction"] = "I am not sure which one of these it is."
    return frame.drop(columns=["image"])


def lmms_eval_rows(frame: pd.DataFrame) -> list[dict[str, object]]:
    """lmms-eval's MMBench result dicts (tasks/mmbench/en_utils.py, mmbench_process_results): no g_index,
    `L2-category`, and `doc.get(c, "nan")` for A-E, so a missing option or hint is the text "nan"."""
    rows = []
    for record in frame.to_dict("records"):
        row: dict[str, object] = {
            "index": int(record["index"]), "question": record["question"], "answer": record["answer"],
            "prediction": record["prediction"], "hint": record["hint"] or "nan", "source": "sample",
            "split": record["split"], "category": record["category"], "L2-category": record["l2-category"]}
        row.update({c: (record.get(c) or "nan") for c in "ABCDE"})
        rows.append(row)
    return rows


def test_lmms_eval_xlsx_and_sample_log_score_like_vlmevalkit_files(tmp_path: Path) -> None:
    frame = sample_predictions(tmp_path)
    vlmevalkit = tmp_path / "vlmevalkit.xlsx"
    frame.to_excel(vlmevalkit, index=False)
    rows = lmms_eval_rows(frame)
    xlsx = tmp_path / "mmbench_en_dev_results.xlsx"
    pd.DataFrame(rows).to_excel(xlsx, index=False)
    log = tmp_path / "20250101_120000_samples_mmbench_en_dev.jsonl"
    with log.open("w", encoding="utf-8") as handle:
        for number, row in enumerate(rows):
            line = {"doc_id": number, "target": row["answer"], "filtered_resps": [row["prediction"]],
                    "doc_hash": "0" * 64, "prompt_hash": "1" * 64, "target_hash": "2" * 64,
                    "gpt_eval_score": row, "submission": row, "input": "prompt"}
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")

    expected = asyncio.run(score_prediction_file(vlmevalkit))
    assert expected.overall == pytest.approx(0.9) and expected.l2["CP"] == 0.5
    for path in (xlsx, log):
        result = asyncio.run(score_prediction_file(path))
        assert result.groups == expected.groups, path.name
        assert (result.overall, result.l2, result.category, result.split) == (
            expected.overall, expected.l2, expected.category, expected.split), path.name
        assert result.na_text_questions == 0 and result.unlabelled == {}


def test_test_split_says_what_to_do_now_the_server_is_retired(tmp_path: Path) -> None:
    frame = sample_predictions(tmp_path)
    frame["answer"] = ""
    path = tmp_path / "test.xlsx"
    frame.to_excel(path, index=False)
    with pytest.raises(UserError) as caught:
        asyncio.run(score_prediction_file(path))
    message = str(caught.value)
    assert "evaluation server was retired" in message and "MMBench_TEST_EN_V11" in message
