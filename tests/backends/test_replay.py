"""`replay:` reads other toolkits' answer logs: lmms-eval's --log_samples JSONL for MMBench and MME."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge.backends.replay import ReplayBackend, read_predictions
from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mme.bench import MMEBenchmark
from mmgauge.core.errors import UserError


def log_line(doc_id: int, text: str, entries: dict[str, Any]) -> str:
    """One line as lmms-eval's EvaluationTracker.save_results_samples writes it (doc and arguments popped,
    `resps` popped when equal to `filtered_resps`)."""
    line = {"doc_id": doc_id, "target": "x", "filtered_resps": [text], "doc_hash": "0" * 64,
            "prompt_hash": "1" * 64, "target_hash": "2" * 64, **entries, "input": "prompt"}
    return json.dumps(line, ensure_ascii=False) + "\n"


def test_mmbench_log_replays_into_a_run(tmp_path: Path, cli: Any) -> None:
    data = MMBenchBenchmark().sample_data(tmp_path / "data")
    frame = pd.read_csv(data, sep="\t", dtype=str, keep_default_na=False)
    log = tmp_path / "20250101_samples_mmbench_en_dev.jsonl"
    with log.open("w", encoding="utf-8") as handle:
        for number, row in enumerate(frame.to_dict("records")):
            text = "I am not sure." if row["g_index"] == "2" else f"The answer is {row['answer']}."
            entry = {"index": int(row["index"]), "question": row["question"], "answer": row["answer"],
                     "prediction": text.strip(), "L2-category": row["l2-category"]}
            handle.write(log_line(number, text, {"gpt_eval_score": entry, "submission": entry}))
    assert read_predictions(log)["1000001"] == f"The answer is {frame.loc[1, 'answer']}."
    run = cli("run", "--bench", "mmbench", "--model", f"replay:{log}", "--data", data,
              "--out", tmp_path / "o", "--no-cache")
    assert run.code == 0, run.out + run.err
    result = json.loads((tmp_path / "o" / "results.json").read_text())["benchmarks"]["mmbench"]["result"]
    assert result["overall"] == pytest.approx(0.9)


def test_mme_log_keys_are_the_sample_ids(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    samples = bench.load(bench.sample_data(tmp_path)).samples
    log = tmp_path / "samples_mme.jsonl"
    lines = []
    for number, sample in enumerate(samples):
        key = "mme_percetion_score" if sample.metadata["category"] == "perception" else "mme_cognition_score"
        entry = {"question_id": f"{sample.metadata['subtask']}/{sample.metadata['image']}",
                 "category": sample.metadata["subtask"], "score": 1.0}
        lines.append(log_line(number, f"answer {number}", {key: entry}))
    log.write_text("".join(reversed(lines)), encoding="utf-8")  # gathered out of order: doc_id decides
    answers = read_predictions(log)
    assert answers == {sample.id: f"answer {n}" for n, sample in enumerate(samples)}
    assert ReplayBackend(log).fingerprint().startswith("replay:")


def test_log_line_without_a_known_entry_is_named(tmp_path: Path) -> None:
    log = tmp_path / "samples_other.jsonl"
    log.write_text(log_line(0, "x", {"acc": 1.0}), encoding="utf-8")
    with pytest.raises(UserError) as caught:
        read_predictions(log)
    assert caught.value.line == 1 and "MMBench (index) or MME (question_id)" in str(caught.value)
