"""The numbers POPE's own evaluate.py gives for the fixtures, from mmgauge's runs (CLI and `evaluate()`).

The oracles below are independent transcriptions, written for this test, of POPE's evaluate.py
(AoiDragon/POPE: first sentence, drop ",", split on " ", "No"/"not"/"no" -> no, else yes; TP/FP/TN/FN per
split file) and of VLMEvalKit's POPE scoring (`YOrN_Extraction`, then `POPE_rating` over rows exploded by
category). The hand-computed table pins the oracle itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.benchmarks.pope.result import PopeResult, PopeScores

from .conftest import ROWS, tsv_rows


def official_evaluate(texts: list[str], labels: list[str]) -> dict[str, float]:
    """POPE's evaluate.py, step by step."""
    preds = []
    for text in texts:
        if text.find(".") != -1:
            text = text.split(".")[0]
        words = text.replace(",", "").split(" ")
        preds.append(0 if ("No" in words or "not" in words or "no" in words) else 1)
    truth = [0 if label == "no" else 1 for label in labels]
    tp = sum(p == 1 and t == 1 for p, t in zip(preds, truth, strict=True))
    fp = sum(p == 1 and t == 0 for p, t in zip(preds, truth, strict=True))
    tn = sum(p == 0 and t == 0 for p, t in zip(preds, truth, strict=True))
    fn = sum(p == 0 and t == 1 for p, t in zip(preds, truth, strict=True))
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return {"accuracy": (tp + tn) / len(preds), "precision": precision, "recall": recall,
            "f1": 2 * precision * recall / (precision + recall), "yes_ratio": preds.count(1) / len(preds)}


def vlmevalkit_rating(rows: list[dict[str, str]]) -> dict[str, dict[str, float]]:
    """VLMEvalKit: extract Yes/No/Unknown, score = answer == extracted, explode categories, P/R/F1 of Yes."""
    def extract(text: str) -> str:
        out, s = text.lower(), text.lower()
        for mark in [";", "/", "[", "]", '"', "{", "}", "(", ")", "=", "+", "\\", "_", "-", ">", "<", "@",
                     "`", ",", "?", "!"]:
            strip = mark + " " in s or " " + mark in s or re.search(r"(\d)(,)(\d)", s) is not None
            out = out.replace(mark, "" if strip else " ")
        words = re.sub(r"(?!<=\d)(\.)(?!\d)", "", out, count=32).split()
        return "Yes" if "yes" in words and "no" not in words else (
            "No" if "no" in words and "yes" not in words else "Unknown")

    exploded = [(split, row["answer"], extract(row["prediction"]))
                for row in rows for split in row["category"].split(",")]

    def rate(group: list[tuple[str, str, str]]) -> dict[str, float]:
        tp = sum(a == "Yes" and e == "Yes" for _, a, e in group)
        fp = sum(a != "Yes" and e == "Yes" for _, a, e in group)
        fn = sum(a == "Yes" and e != "Yes" for _, a, e in group)
        precision = tp / (tp + fp) if tp + fp else 0
        recall = tp / (tp + fn) if tp + fn else 0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0
        return {"accuracy": sum(a == e for _, a, e in group) / len(group), "precision": precision,
                "recall": recall, "f1": f1}

    out = {"Overall": rate(exploded)}
    out.update({split: rate([e for e in exploded if e[0] == split]) for split in {e[0] for e in exploded}})
    return out


#: By hand from the comments in conftest.ROWS: (TP, FP, TN, FN) -> acc, P, R, F1, yes-ratio.
BY_HAND = {
    "adversarial": {"accuracy": 4 / 8, "precision": 3 / 6, "recall": 3 / 4, "f1": 0.6, "yes_ratio": 6 / 8},
    "popular": {"accuracy": 6 / 8, "precision": 3 / 4, "recall": 3 / 4, "f1": 0.75, "yes_ratio": 4 / 8},
    "random": {"accuracy": 5 / 8, "precision": 3 / 5, "recall": 3 / 4, "f1": 2 / 3, "yes_ratio": 5 / 8},
}


def values(scores: PopeScores) -> dict[str, float]:
    out = {"accuracy": scores.accuracy.value, "yes_ratio": scores.yes_ratio.value}
    for name in ("precision", "recall", "f1"):
        metric = getattr(scores, name)
        out[name] = metric.value
    return out


def test_the_oracle_gives_the_hand_computed_numbers() -> None:
    for split, rows in ROWS.items():
        found = official_evaluate([r[3] for r in rows], [r[2] for r in rows])
        assert found == pytest.approx(BY_HAND[split]), split


def test_cli_replay_on_the_lmms_lab_parquet_gives_the_official_numbers(
        cli: Any, lmms_lab_parquet: Path, replay_for_parquet: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = cli("run", "--bench", "pope", "--data", lmms_lab_parquet,
                 "--model", f"replay:{replay_for_parquet}", "--out", out, "--no-cache")
    assert result.code == 0, result.err
    scores = mmgauge.load_run(out).result("pope")
    assert isinstance(scores, PopeResult) and scores.reader == "official"
    assert list(scores.splits) == ["random", "popular", "adversarial"]
    for split, expected in BY_HAND.items():
        assert values(scores.splits[split]) == pytest.approx(expected), split
    everything = [row for rows in ROWS.values() for row in rows]
    assert scores.overall is not None
    assert values(scores.overall) == pytest.approx(official_evaluate([r[3] for r in everything],
                                                                     [r[2] for r in everything]))
    assert (scores.overall.tp, scores.overall.fp, scores.overall.tn, scores.overall.fn) == (9, 6, 6, 3)
    assert "POPE random" in result.out and "acc 62.50%" in result.out


def test_every_number_carries_an_interval_around_it(lmms_lab_parquet: Path, replay_for_parquet: Path,
                                                     tmp_path: Path) -> None:
    mmgauge.evaluate(model=f"replay:{replay_for_parquet}", benchmarks=["pope"], data=lmms_lab_parquet,
                     out=tmp_path / "run", cache=False)
    scores = mmgauge.load_run(tmp_path / "run").result("pope")
    assert isinstance(scores, PopeResult) and scores.overall is not None
    for group in [scores.overall, *scores.splits.values()]:
        for metric in (group.accuracy, group.precision, group.recall, group.f1, group.yes_ratio):
            assert metric is not None and metric.ci.low <= metric.value <= metric.ci.high
    assert scores.splits["random"].accuracy.ci.method == "clopper-pearson"
    assert scores.splits["random"].accuracy.ci.n == 8
    assert scores.overall.f1 is not None and scores.overall.f1.ci.method == "image-bootstrap-percentile"


def test_evaluate_on_vlmevalkits_tsv_scores_each_split_as_pope_and_overall_as_vlmevalkit(
        vlmevalkit_tsv: Path, vlmevalkit_predictions: Path, tmp_path: Path) -> None:
    rows = tsv_rows()
    mmgauge.evaluate(model=f"replay:{vlmevalkit_predictions}", benchmarks=["pope"], data=vlmevalkit_tsv,
                     out=tmp_path / "official", cache=False)
    scores = mmgauge.load_run(tmp_path / "official").result("pope")
    assert isinstance(scores, PopeResult) and scores.overall is not None
    for split in ("adversarial", "popular", "random"):
        mine = [row for row in rows if split in row["category"].split(",")]
        expected = official_evaluate([r["prediction"] for r in mine], [r["answer"].lower() for r in mine])
        assert values(scores.splits[split]) == pytest.approx(expected), split
    # A question in three splits is one row (asked once) and three entries.
    assert scores.overall.questions == len(rows) < scores.overall.entries == 24

    mmgauge.evaluate(model=f"replay:{vlmevalkit_predictions}", benchmarks=["pope"], data=vlmevalkit_tsv,
                     out=tmp_path / "vlmevalkit", cache=False, options={"parser": "vlmevalkit"})
    other = mmgauge.load_run(tmp_path / "vlmevalkit").result("pope")
    assert isinstance(other, PopeResult) and other.reader == "vlmevalkit" and other.overall is not None
    rating = vlmevalkit_rating(rows)
    for name, group in [("Overall", other.overall), *other.splits.items()]:
        found = {k: v for k, v in values(group).items() if k != "yes_ratio"}
        assert found == pytest.approx(rating[name]), name
    assert other.overall.unknown > 0


def test_always_yes_scores_half_right_with_full_recall(lmms_lab_parquet: Path, tmp_path: Path) -> None:
    mmgauge.evaluate(model="mock:Yes", benchmarks=["pope"], data=lmms_lab_parquet, out=tmp_path / "r",
                     cache=False)
    scores = mmgauge.load_run(tmp_path / "r").result("pope")
    assert isinstance(scores, PopeResult) and scores.overall is not None
    assert values(scores.overall) == pytest.approx({"accuracy": 0.5, "precision": 0.5, "recall": 1.0,
                                                    "f1": 2 / 3, "yes_ratio": 1.0})
