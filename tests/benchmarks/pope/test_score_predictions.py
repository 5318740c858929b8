"""`score_predictions` reads VLMEvalKit's prediction workbook and lmms-eval's sample log of its pope tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.benchmarks.pope.predictions import score_predictions
from mmgauge.core.errors import UserError

from .conftest import ROWS, parquet_rows, tsv_rows
from .test_official_numbers import BY_HAND, official_evaluate, values, vlmevalkit_rating


def lmms_eval_log(path: Path, *, with_doc: bool = True, only: str | None = None) -> Path:
    """lmms-eval's `--log_samples` lines: the doc without its image columns, target, resps, metrics."""
    texts = [text for entries in ROWS.values() for *_, text in entries]
    lines = []
    for doc_id, (row, text) in enumerate(zip(parquet_rows(), texts, strict=True)):
        if only is not None and row["category"] != only:
            continue
        doc = {k: v for k, v in row.items() if "image" not in k}
        entry = {"question_id": row["question_id"], "score": 0.0, "prediction": text.lower().strip(),
                 "ground_truth": row["answer"]}
        line: dict[str, Any] = {"doc_id": doc_id, "target": row["answer"], "arguments": [],
                                "resps": [[text]], "filtered_resps": [text], "doc_hash": "h",
                                **{name: entry for name in ("pope_accuracy", "pope_precision", "pope_recall",
                                                            "pope_f1_score", "pope_yes_ratio")}}
        if with_doc:
            line["doc"] = doc
        lines.append(json.dumps(line, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_lmms_eval_log_scores_per_split_as_pope(tmp_path: Path) -> None:
    result = score_predictions(lmms_eval_log(tmp_path / "20250101_samples_pope.jsonl"))
    for split, expected in BY_HAND.items():
        assert values(result.splits[split]) == pytest.approx(expected), split
    assert result.overall is not None and result.overall.entries == 24 and not result.notes


def test_a_single_split_task_log_takes_its_split_from_the_file_name(tmp_path: Path) -> None:
    path = lmms_eval_log(tmp_path / "20250101_samples_pope_adv.jsonl", with_doc=False, only="adversarial")
    result = score_predictions(path)
    assert list(result.splits) == ["adversarial"]
    assert values(result.splits["adversarial"]) == pytest.approx(BY_HAND["adversarial"])


def test_a_log_without_splits_gives_the_overall_score_and_says_so(tmp_path: Path) -> None:
    result = score_predictions(lmms_eval_log(tmp_path / "samples_pope.jsonl", with_doc=False))
    everything = [row for rows in ROWS.values() for row in rows]
    assert result.overall is not None and not result.splits
    assert values(result.overall) == pytest.approx(official_evaluate([r[3] for r in everything],
                                                                     [r[2] for r in everything]))
    assert "count in the overall score only" in result.notes[0]


def test_vlmevalkits_workbook_with_either_reader(vlmevalkit_predictions: Path) -> None:
    rows = tsv_rows()
    official = score_predictions(vlmevalkit_predictions)
    for split in ("adversarial", "popular", "random"):
        mine = [row for row in rows if split in row["category"].split(",")]
        expected = official_evaluate([r["prediction"] for r in mine], [r["answer"].lower() for r in mine])
        assert values(official.splits[split]) == pytest.approx(expected)
    theirs = score_predictions(vlmevalkit_predictions, parser="vlmevalkit")
    assert theirs.overall is not None
    found = {k: v for k, v in values(theirs.overall).items() if k != "yes_ratio"}
    assert found == pytest.approx(vlmevalkit_rating(rows)["Overall"])


def test_an_empty_prediction_is_a_failed_request(tmp_path: Path, vlmevalkit_predictions: Path) -> None:
    import pandas as pd

    frame = pd.read_excel(vlmevalkit_predictions, dtype=str, keep_default_na=False)
    frame.loc[0, "prediction"] = ""
    path = tmp_path / "gap.tsv"
    frame.to_csv(path, sep="\t", index=False)
    result = score_predictions(path)
    assert result.failed == 1 and result.overall is not None and result.overall.questions == len(frame) - 1


def test_a_file_without_the_columns_names_what_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "p.tsv"
    path.write_text("index\tprediction\n1\tYes\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"p\.tsv: missing column\(s\) answer, category"):
        score_predictions(path)
