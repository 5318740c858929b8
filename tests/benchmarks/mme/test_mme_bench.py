"""The MME Benchmark: built-in sample, prompts, extraction, the judge pass, scoring from records."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from mmgauge.backends.base import BackendSettings
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.benchmarks.mme.bench import MMEBenchmark, MMEOptions
from mmgauge.benchmarks.mme.scoring import SUBTASKS
from mmgauge.benchmarks.mme.tidy import mme_rows
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import judge_refused
from mmgauge.testing.scripted import ScriptedBackend
from mmgauge.testing.server import Action, FakeOpenAIServer


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_sample_is_byte_identical_and_covers_every_subtask(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    first = bench.sample_data(tmp_path / "one")
    second = bench.sample_data(tmp_path / "two")
    assert tree_hash(first) == tree_hash(second)
    dataset = bench.load(first)
    assert {s.metadata["subtask"] for s in dataset.samples} == set(SUBTASKS)
    assert (first / "scene" / "images").is_dir() and (first / "count" / "0001.txt").is_file()
    assert all(s.question.endswith("Please answer yes or no.") for s in dataset.samples)
    assert bench.load(second).fingerprint == dataset.fingerprint


def test_prompt_is_the_question_verbatim(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    sample = bench.load(bench.sample_data(tmp_path)).samples[0]
    (message,) = bench.build_messages(sample)
    assert message.text() == sample.question and message.images() == sample.images


def test_unknown_parser_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown MME parser"):
        MMEBenchmark(MMEOptions(parser="fuzzy"))


def run_records(bench: MMEBenchmark, tmp_path: Path, answers: dict[str, str | None]) -> list[SampleRecord]:
    dataset = bench.load(bench.sample_data(tmp_path))
    records = []
    for sample in dataset.samples:
        if sample.id not in answers:
            continue
        text = answers[sample.id]
        extraction = bench.extract(sample, text) if text is not None else None
        records.append(SampleRecord(
            benchmark="mme", sample_id=sample.id, fingerprint="m", prompt=sample.question,
            response=ModelResponse(text=text, error=None if text is not None else "timeout"),
            extraction=extraction, target=sample.answer,
            correct=extraction is not None and extraction.answer == sample.answer,
            metadata=bench.record_metadata(sample)))
    return records


def test_judge_resolves_words_unknown_with_retries(tmp_path: Path) -> None:
    bench = MMEBenchmark(MMEOptions(parser="words"))
    records = run_records(bench, tmp_path, {
        "OCR/0001.png/q0": "It reads hello world, so I agree.",  # unknown -> judge: "Yes."
        "OCR/0001.png/q1": "Maybe.",  # unknown -> judge: "hmm", then "no" on the second try
        "OCR/0002.png/q0": "yes",  # read by rule: judge never asked
        "OCR/0002.png/q1": "Both yes and no",  # unknown -> judge: three unreadable replies
    })
    backend = ScriptedBackend(["Yes.", "hmm", "no", "?", "??", "???"])
    resolved = asyncio.run(bench.resolve(records, {}, Judge(backend)))
    methods = [(r.extraction.method, r.extraction.answer, r.correct) for r in resolved if r.extraction]
    assert methods == [("judge", "yes", True), ("judge", "no", True), ("words", "yes", True),
                       ("words-unknown", None, False)]
    assert len(backend.prompts) == 6 and "Try 2 of 3" in backend.prompts[2]
    assert "Maybe." in backend.prompts[1]
    result = bench.score(resolved)
    # OCR: 3 of 4 right -> acc 75; image 0001 both right, 0002 not -> acc+ 50
    ocr = result.subtasks["OCR"]
    assert (ocr.acc, ocr.acc_plus, ocr.other) == (75, 50, 1)
    assert result.subtasks["OCR"].methods == {"judge": 2, "words": 1, "words-unknown": 1}


def test_without_judge_unknown_stays_wrong_and_counted(tmp_path: Path) -> None:
    bench = MMEBenchmark(MMEOptions(parser="words"))
    records = run_records(bench, tmp_path, {"OCR/0001.png/q0": "sure", "OCR/0001.png/q1": "no"})
    resolved = asyncio.run(bench.resolve(records, {}, None))
    result = bench.score(resolved)
    assert (result.subtasks["OCR"].acc, result.other) == (50.0, 1)
    assert ("MME unreadable answers", "1 (counted wrong)") in bench.summary(result)


def test_an_unavailable_judge_leaves_the_answer_waiting(tmp_path: Path) -> None:
    bench = MMEBenchmark(MMEOptions(parser="words"))
    records = run_records(bench, tmp_path, {"OCR/0001.png/q0": "sure", "OCR/0001.png/q1": "no"})
    (first, _) = asyncio.run(bench.resolve(records, {}, Judge(ScriptedBackend([]))))
    # Not "words-unknown" (which counts wrong): the runner treats it as a failed request to retry.
    assert first.extraction is not None and first.extraction.method == "judge-failed"
    assert first.extraction.detail is not None and first.extraction.detail.startswith("judge unavailable")
    assert not judge_refused(first.extraction.method, first.extraction.detail)


def test_a_judge_whose_server_refuses_the_prompt_leaves_the_answer_waiting_as_refused(tmp_path: Path) -> None:
    bench = MMEBenchmark(MMEOptions(parser="words"))
    records = run_records(bench, tmp_path, {"OCR/0001.png/q0": "sure", "OCR/0001.png/q1": "no"})
    with FakeOpenAIServer() as server:
        server.default = Action("context_length")
        judge = Judge(OpenAIBackend(server.base_url, "judge", settings=BackendSettings(max_retries=0)))
        (first, _) = asyncio.run(bench.resolve(records, {}, judge))
        assert server.requests == 1  # the refusal ends the judging of that answer: no second prompt
    assert first.extraction is not None and first.extraction.method == "judge-failed"
    assert judge_refused(first.extraction.method, first.extraction.detail)
    assert "context_length_exceeded" in (first.extraction.detail or "")


def test_official_parser_never_goes_to_the_judge(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    records = run_records(bench, tmp_path, {"OCR/0001.png/q0": "I think so", "OCR/0001.png/q1": "no"})
    backend = ScriptedBackend(["yes"])
    resolved = asyncio.run(bench.resolve(records, {}, Judge(backend)))
    assert backend.prompts == [] and resolved[0].extraction is not None
    assert resolved[0].extraction.method == "official-other"


def test_failed_requests_make_the_subtask_incomplete(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    answers: dict[str, str | None] = {"color/0001.png/q0": "Yes", "color/0001.png/q1": "No",
                                      "color/0002.png/q0": None, "color/0002.png/q1": "No"}
    result = bench.score(run_records(bench, tmp_path, answers))
    color = result.subtasks["color"]
    assert (color.acc, color.acc_plus, color.failed, color.complete) == (100.0, 100.0, 1, False)
    summary = dict(bench.summary(result))
    assert "incomplete color" in summary["MME perception partial"]
    assert summary["MME failed requests"] == "1 (not scored)"


def test_summary_prints_each_total_with_its_interval_and_n() -> None:
    from mmgauge.benchmarks.mme.scoring import MMEItem, score_mme

    items = [MMEItem("code_reasoning", str(i), truth, truth) for i in range(5) for truth in ("yes", "no")]
    summary = dict(MMEBenchmark().summary(score_mme(items, parser="official")))
    ci = score_mme(items, parser="official").cognition.ci
    assert ci is not None
    assert summary["MME cognition"] == f"200.00 / 800 (95% CI {ci.low:.2f}-200.00, n=5) partial"
    assert ci.low < 150  # 10 questions all right: far from certain


def test_the_summary_shows_the_yes_ratio_and_warns_on_bias(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    always_yes = {sample_id: "Yes" for sample_id in _sample_ids(bench, tmp_path)}
    rows = dict(bench.summary(bench.score(run_records(bench, tmp_path, always_yes))))
    assert rows["MME yes-ratio"].startswith("100.0% yes among")
    assert "answer bias: mostly 'yes'" in rows["MME warning"]
    samples = bench.load(bench.sample_data(tmp_path / "truth")).samples
    truthful = {sample.id: str(sample.answer).capitalize() for sample in samples}
    balanced = dict(bench.summary(bench.score(run_records(bench, tmp_path, truthful))))
    assert balanced["MME yes-ratio"].startswith("50.0% yes") and "MME warning" not in balanced


def test_a_subtask_without_any_yes_or_no_has_no_yes_ratio(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    letters = {sample_id: "A" for sample_id in _sample_ids(bench, tmp_path)}
    result = bench.score(run_records(bench, tmp_path, letters))
    assert all(score.yes_ratio is None for score in result.subtasks.values())
    assert "MME yes-ratio" not in dict(bench.summary(result))


def _sample_ids(bench: MMEBenchmark, tmp_path: Path) -> list[str]:
    return [sample.id for sample in bench.load(bench.sample_data(tmp_path / "ids")).samples]


def test_a_total_with_no_answered_subtask_says_so_and_has_no_baselines(tmp_path: Path) -> None:
    from mmgauge.benchmarks.baseline_scores import score_baselines

    bench = MMEBenchmark()
    records = run_records(bench, tmp_path, {"OCR/0001.png/q0": None, "OCR/0001.png/q1": None,
                                             "OCR/0002.png/q0": "yes", "OCR/0002.png/q1": "no"})
    rows = dict(bench.summary(bench.score(records)))
    assert rows["MME cognition"] == "nothing scored yet (of 800)"
    assert rows["MME perception"].startswith("200.00 / 2000")  # OCR's one answered image: both right
    baselines = score_baselines(bench, records)
    assert baselines and all(set(b.headline) == {"MME perception"} for b in baselines.values())
    failed = run_records(bench, tmp_path, {"OCR/0001.png/q0": None, "OCR/0001.png/q1": None})
    assert dict(bench.summary(bench.score(failed)))["MME perception"] == "nothing scored yet (of 2000)"
    totals = {row.metric: row.value for row in mme_rows(bench.score(records).model_dump(mode="json"))
              if row.headline}
    assert totals == {"perception": 200.0, "cognition": None}  # export table: no value, not 0
