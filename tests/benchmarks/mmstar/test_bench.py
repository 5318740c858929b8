"""`mmgauge run --bench mmstar` on VLMEvalKit's TSV and the Hugging Face parquet gives the numbers
VLMEvalKit's evaluation gives for the same answers (derived in conftest.py from its exact-matching rule,
independently)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.benchmarks.mmstar.bench import MMStarBenchmark
from mmgauge.benchmarks.mmstar.result import CAPABILITIES, MMStarResult
from mmgauge.stats.proportion import clopper_pearson_bounds


def result_of(out: Path) -> MMStarResult:
    found = mmgauge.load_run(out).result("mmstar")
    assert isinstance(found, MMStarResult)
    return found


def assert_vlmevalkit_numbers(result: MMStarResult, want: Any) -> None:
    assert (result.overall.correct, result.overall.questions) == (want.correct, want.questions)
    assert {k: (v.correct, v.questions) for k, v in result.capability.items()} == want.capability
    assert {k: (v.correct, v.questions) for k, v in result.axis.items()} == want.axis


def test_the_fixture_reads_are_vlmevalkits_rule(case: Any) -> None:
    reads = tuple(case.letter(item.prediction, case.options(item)) for item in case.items)
    assert reads == case.reads
    want = case.expected()
    # 6 of 12 hit: A, (B), "The answer is C.", "Answer: B", "12 °C" (option text), "... réponse D".
    assert (want.correct, want.questions, want.unread) == (6, 12, 3)


def test_a_replayed_vlmevalkit_sheet_scores_as_vlmevalkit_on_the_tsv(
        cli: Any, tsv: Path, predictions: Path, tmp_path: Path, case: Any) -> None:
    out = tmp_path / "run"
    done = cli("run", "--bench", "mmstar", "--data", tsv, "--model", f"replay:{predictions}", "--judge",
               "none", "--out", out, "--no-cache")
    assert done.code == 0, done.err
    result = result_of(out)
    assert_vlmevalkit_numbers(result, case.expected())
    assert result.overall.correct == 6 and result.overall.pct == 50.0
    assert result.capability["coarse perception"].accuracy == 1.0
    assert result.capability["math"].correct == 0
    # Two answers no rule reads ("A or B", "None of these") and the failure marker: all count wrong, said so.
    assert (result.unresolved, result.failed, result.judged) == (2, 1, False)
    assert result.extraction == {"failure": 1, "rule-letter": 8, "rule-text": 1, "unresolved": 2}
    low, high = clopper_pearson_bounds(6, 12)
    assert result.overall.ci is not None and (result.overall.ci.low, result.overall.ci.high) == (low, high)
    assert "MMStar overall" in done.out and "50.00%" in done.out
    notes = [text for label, text in MMStarBenchmark().summary(result) if label == "MMStar note"]
    assert notes == ["2 answers no rule (and no judge, --judge none) could read count wrong",
                     "1 answers carry the failure marker and count wrong"]


def test_evaluate_on_the_parquet_gives_the_same_numbers_and_prompts(
        tsv: Path, parquet: Path, predictions: Path, tmp_path: Path, case: Any) -> None:
    runs = {}
    for name, data in (("tsv", tsv), ("parquet", parquet)):
        out = tmp_path / name
        mmgauge.evaluate(model=f"replay:{predictions}", benchmarks=["mmstar"], data=data, out=out,
                         judge="none", cache=False)
        assert_vlmevalkit_numbers(result_of(out), case.expected())
        lines = (out / "samples.jsonl").read_text(encoding="utf-8").splitlines()
        runs[name] = {record["sample_id"]: record["prompt"] for record in map(json.loads, lines)}
    assert runs["parquet"] == runs["tsv"]
    assert runs["tsv"]["7"] == case.prompt(case.items[7]) == (
        "Question: Quelle température indique le thermomètre ?\nOptions:\nA. 5 °C\nB. 12 °C\nC. 20 °C\n"
        "D. −3 °C\nPlease select the correct answer from the options above. \n")


def test_a_judge_reads_what_exact_matching_cannot(
        cli: Any, tsv: Path, predictions: Path, tmp_path: Path, case: Any) -> None:
    out = tmp_path / "judged"
    done = cli("run", "--bench", "mmstar", "--data", tsv, "--model", f"replay:{predictions}", "--judge",
               "mock:B", "--out", out, "--no-cache")
    assert done.code == 0, done.err
    result = result_of(out)
    # The judge says B for "A or B" (answer B: now right) and "None of these" (answer A: still wrong).
    judged = tuple("B" if read == "Z" and item.prediction != "Failed to obtain answer via API" else read
                   for item, read in zip(case.items, case.reads, strict=True))
    assert_vlmevalkit_numbers(result, case.expected(judged))
    assert (result.overall.correct, result.unresolved, result.judged) == (7, 0, True)
    assert result.extraction["judge"] == 2


def test_mock_a_scores_the_share_of_a_answers(cli: Any, tsv: Path, tmp_path: Path, case: Any) -> None:
    out = tmp_path / "mock"
    assert cli("run", "--bench", "mmstar", "--data", tsv, "--model", "mock:A", "--out", out).code == 0
    result = result_of(out)
    assert_vlmevalkit_numbers(result, case.expected(tuple("A" for _ in case.items)))
    assert result.overall.correct == sum(item.answer == "A" for item in case.items) == 3


def test_the_builtin_sample_covers_every_capability_and_axis(cli: Any, tmp_path: Path) -> None:
    out = tmp_path / "sample"
    done = cli("run", "--bench", "mmstar", "--model", "mock:A", "--out", out)
    assert done.code == 0, done.err
    result = result_of(out)
    assert list(result.capability) == list(CAPABILITIES)
    assert all(score.questions == 3 for score in result.capability.values())
    assert len(result.axis) == 18 and all(score.questions == 1 for score in result.axis.values())
    assert (result.overall.correct, result.overall.questions) == (6, 18)
    assert "built-in synthetic sample data" in done.out


def test_the_default_prompt_is_vlmevalkits_and_paper_is_a_one_line_error(cli: Any, tsv: Path) -> None:
    bench = MMStarBenchmark()
    assert bench.prompt.name == "vlmevalkit" and "image_mcq.py" in bench.prompt.source
    line = cli("run", "--bench", "mmstar", "--data", tsv, "--model", "mock:A", "--prompt",
               "paper").error_line()
    assert "no 'paper' prompt for MMStar" in line


def test_the_lmms_eval_prompt_sends_the_hugging_face_question(parquet: Path, case: Any) -> None:
    bench = MMStarBenchmark({"prompt": "lmms-eval"})
    sample = bench.load(parquet).samples[8]
    (message,) = bench.build_messages(sample)
    assert message.text() == case.inline(case.items[8]) + (
        "\nAnswer with the option's letter from the given choices directly")
    assert len(message.images()) == 1


@pytest.mark.parametrize("random_fallback", [False, True])
def test_random_fallback_only_when_asked(tsv: Path, predictions: Path, tmp_path: Path,
                                         random_fallback: bool) -> None:
    out = tmp_path / "rf"
    mmgauge.evaluate(model=f"replay:{predictions}", benchmarks=["mmstar"], data=tsv, out=out, judge="none",
                     cache=False, options={"mmstar": {"random_fallback": random_fallback}})
    result = result_of(out)
    assert (result.random, result.unresolved) == ((2, 0) if random_fallback else (0, 2))
