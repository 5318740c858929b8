"""The M3GIA benchmark: prompts, option shuffling, the resolve pass, the built-in sample and a full run."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.benchmarks.m3gia.bench import M3GIABenchmark, M3GIAOptions
from mmgauge.benchmarks.m3gia.data import LANGUAGES, answer_table
from mmgauge.benchmarks.m3gia.prompts import PROMPTS
from mmgauge.benchmarks.m3gia.sample import ITEMS
from mmgauge.benchmarks.registry import get_benchmark
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, Sample, SampleRecord
from mmgauge.extraction.judge import Judge
from mmgauge.testing.scripted import ScriptedBackend


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Sample]:
    bench = M3GIABenchmark()
    dataset = bench.load(bench.sample_data(tmp_path_factory.mktemp("sample")))
    return {s.id: s for s in dataset.samples}


def test_registry_finds_the_benchmark() -> None:
    assert isinstance(get_benchmark("m3gia"), M3GIABenchmark)


def test_prompt_has_hint_first_options_on_one_line_and_the_english_instruction(
        samples: dict[str, Sample]) -> None:
    (message,) = M3GIABenchmark().build_messages(samples["english/111"])
    text = message.text()
    assert text.startswith(PROMPTS["english"].instruction + "\nQuestion: Read the passage.")
    assert "Question: Read the passage." in text and "\nHow does Tom go to school?\n" in text
    assert "Choices: (A) By bus  (B) By bike  (C) On foot  (D) By car\nAnswer: " in text
    assert message.images() == []  # text-only questions send no image
    (with_image,) = M3GIABenchmark().build_messages(samples["english/251"])
    assert len(with_image.images()) == 1
    # The official evaluation asks every language with the English instruction.
    (chinese,) = M3GIABenchmark().build_messages(samples["chinese/17"])
    assert chinese.text().startswith(PROMPTS["english"].instruction)


def test_prompt_language_is_selectable(samples: dict[str, Sample]) -> None:
    assert tuple(PROMPTS) == LANGUAGES
    (french,) = M3GIABenchmark(M3GIAOptions(prompt_language="fr")).build_messages(samples["english/1"])
    assert french.text().startswith(PROMPTS["french"].instruction) and "Choix : (A) sad" in french.text()
    native = M3GIABenchmark(M3GIAOptions(prompt_language="native"))
    assert native.build_messages(samples["chinese/17"])[0].text().startswith(PROMPTS["chinese"].instruction)
    with pytest.raises(UserError, match="native"):
        M3GIABenchmark(M3GIAOptions(prompt_language="klingon"))


def test_shuffling_is_deterministic_per_sample_round_and_seed(samples: dict[str, Sample]) -> None:
    sample = samples["english/211"]
    bench = M3GIABenchmark(M3GIAOptions(rounds=5, shuffle_options=True))
    orders = [bench.option_order(sample, r) for r in range(5)]
    assert orders == [M3GIABenchmark(M3GIAOptions(shuffle_options=True)).option_order(sample, r)
                      for r in range(5)]
    assert all(sorted(order) == list("ABCDEF") for order in orders)
    assert len({"".join(order) for order in orders}) > 1
    other_seed = M3GIABenchmark(M3GIAOptions(shuffle_options=True, seed=7))
    assert [other_seed.option_order(sample, r) for r in range(5)] != orders
    assert M3GIABenchmark().option_order(sample, 3) == list("ABCDEF")  # no shuffling unless asked
    shown = bench.shown_options(sample, 2)
    assert f"(A) {shown['A']}  (B) {shown['B']}" in bench.build_messages(sample, 2)[0].text()


def record(bench: M3GIABenchmark, sample: Sample, text: str, round: int = 0) -> SampleRecord:
    extraction = bench.extract(sample, text, round)
    return SampleRecord(
        benchmark="m3gia", sample_id=sample.id, round=round, fingerprint="f", prompt="p",
        response=ModelResponse(text=text), extraction=extraction, target=sample.answer,
        correct=extraction.answer == sample.answer, metadata=bench.record_metadata(sample),
    )


def test_shuffled_answers_are_read_against_their_round_and_mapped_back(samples: dict[str, Sample]) -> None:
    sample = samples["english/211"]  # the answer is E (32)
    bench = M3GIABenchmark(M3GIAOptions(rounds=3, shuffle_options=True))
    for round in range(3):
        shown = bench.shown_options(sample, round)
        letter = next(k for k, v in shown.items() if v == "32")
        first = record(bench, sample, f"({letter})", round)
        assert first.extraction is not None and first.extraction.answer == "E" and first.correct
        (done,) = asyncio.run(bench.resolve([first], {sample.id: sample}, None))
        assert done.extraction is not None
        assert (done.extraction.answer, done.extraction.method, done.correct) == ("E", "paren", True)
        assert done.metadata["option_order"] == "".join(bench.option_order(sample, round))
        assert f"shown as {letter}, original letter E" in (done.extraction.detail or "")


def test_judge_reads_what_rules_left_unresolved(samples: dict[str, Sample]) -> None:
    sample = samples["english/16"]  # Paris is C
    bench = M3GIABenchmark()
    unresolved = record(bench, sample, "Paris")  # too short for the option-text step
    decided = record(bench, sample, "(A)")
    backend = ScriptedBackend(["C"])
    judged, untouched = asyncio.run(bench.resolve([unresolved, decided], {sample.id: sample}, Judge(backend)))
    assert judged.extraction is not None and judged.extraction.method == "judge"
    assert judged.extraction.answer == "C" and judged.correct is True
    assert untouched == decided
    assert len(backend.prompts) == 1 and "Answer: Paris" in backend.prompts[0]


def test_unresolved_counts_wrong_unless_random_fallback(samples: dict[str, Sample]) -> None:
    sample = samples["english/16"]
    plain = M3GIABenchmark()
    (wrong,) = asyncio.run(plain.resolve([record(plain, sample, "no idea")], {sample.id: sample}, None))
    assert wrong.extraction is not None and wrong.extraction.answer is None and wrong.correct is False
    assert "counted wrong" in (wrong.extraction.detail or "")
    lucky = M3GIABenchmark(M3GIAOptions(random_fallback=True, seed=3))
    first = asyncio.run(lucky.resolve([record(lucky, sample, "no idea")], {sample.id: sample}, None))
    again = asyncio.run(lucky.resolve([record(lucky, sample, "no idea")], {sample.id: sample}, None))
    assert first == again
    assert first[0].extraction is not None and first[0].extraction.method == "random"
    assert first[0].extraction.answer in sample.options


def sha256_tree(root: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.iterdir())}


def test_sample_is_byte_identical_and_maps_to_real_question_types(tmp_path: Path,
                                                                   samples: dict[str, Sample]) -> None:
    bench = M3GIABenchmark()
    first = sha256_tree(bench.sample_data(tmp_path / "one"))
    assert first == sha256_tree(bench.sample_data(tmp_path / "two"))
    assert set(first) == {"english_v1.parquet", "chinese_v1.parquet", "french_v1.parquet"}
    for language, items in ITEMS.items():
        truths = answer_table(language)
        for item in items:
            sample = samples[f"{language}/{item.qid}"]
            assert sample.metadata["question_type"] == truths[str(item.qid)].question_type
            assert sample.answer == item.answer and sample.metadata["truth_source"] == "sample"
            assert bool(sample.images) == (item.image is not None)
    clusters = {lang: {s.metadata["cluster"] for s in samples.values() if s.metadata["language"] == lang}
                for lang in ITEMS}
    assert all(len(found) == 5 for found in clusters.values())  # every cluster in every sample language


def test_run_on_the_sample_through_the_command_line(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "run"
    result = cli("run", "--model", "mock:B", "--bench", "m3gia", "--out", out, "--no-cache",
                 "--language", "en,zh")
    assert result.code == 0, result.out + result.err
    scores = json.loads((out / "results.json").read_text())["benchmarks"]["m3gia"]
    english = scores["result"]["per_language"]["english"]
    expected = sum(item.answer == "B" for item in ITEMS["english"]) / len(ITEMS["english"])
    assert english["overall"]["mean"] == pytest.approx(expected)
    assert english["gia"] is None and "GIA not computed" in english["gia_note"]
    assert scores["result"]["languages"] == ["english", "chinese"]
    headline = dict((row[0], row[1]) for row in scores["headline"])
    assert headline["M3GIA english GIA"].startswith("not computed")


def test_summary_prints_overall_with_interval_and_n() -> None:
    from mmgauge.benchmarks.m3gia.data import factor_table
    from mmgauge.benchmarks.m3gia.scoring import Item, score_items

    truths, factors = answer_table("english"), factor_table("english")
    result = score_items([Item("english", qid, truths[qid].question_type, factors[qid], 0, True)
                          for qid in ("1", "2", "16", "151")])
    rows = dict(M3GIABenchmark().summary(result))
    ci = result.per_language["english"].overall_ci
    assert ci is not None
    # 4 of 4 right: the exact interval [0.025^(1/4), 1] = [39.8%, 100%], not a point.
    assert rows["M3GIA english overall"] == "100.0% (95% CI 39.8-100.0, n=4), 1 round"


def test_summary_prints_the_gia_with_its_interval_and_n() -> None:
    from mmgauge.benchmarks.m3gia.data import factor_table
    from mmgauge.benchmarks.m3gia.scoring import Item, score_items

    truths, factors = answer_table("english"), factor_table("english")
    result = score_items([Item("english", qid, truth.question_type, factors.get(qid, ()), 0,
                               int(qid) % 2 == 0) for qid, truth in truths.items()])
    gia = result.per_language["english"].gia
    assert gia is not None and gia.gia_ci is not None
    low, high = gia.gia_ci.bounds()
    expected = f"{gia.gia.mean:.2f} (95% CI {low:.2f}-{high:.2f}, n=300, normalised"
    assert dict(M3GIABenchmark().summary(result))["M3GIA english GIA"].startswith(expected)
