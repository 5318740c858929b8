"""Trivial baselines are scored by each benchmark's own scoring: a fixed answerer scores what a model giving
that answer scores, and chance is the exact expected score (checked by hand on the built-in samples)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

import mmgauge
from mmgauge.benchmarks.baseline_answers import Baseline, yes_no_baselines
from mmgauge.benchmarks.baseline_scores import answer_sets, score_baselines
from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
from mmgauge.benchmarks.mme.scoring import COGNITION, PERCEPTION, MMEResult
from mmgauge.benchmarks.registry import get_benchmark
from mmgauge.benchmarks.yesno import YesNoBenchmark
from mmgauge.core.types import ModelResponse, Sample, SampleRecord
from mmgauge.store.results import RunResults


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunResults]:
    base = tmp_path_factory.mktemp("baselines")
    return {model: mmgauge.evaluate(model=model, out=base / model.replace(":", "-"), cache=False)
            for model in ("mock:Yes", "mock:A")}


def samples(name: str, tmp_path: Path) -> list[Sample]:
    bench = get_benchmark(name)
    return bench.load(bench.sample_data(tmp_path / name)).samples


def test_always_yes_scores_what_a_model_answering_yes_scores_on_mme(runs: dict[str, RunResults]) -> None:
    entry = runs["mock:Yes"].benchmarks["mme"]
    scored = entry.result_as(MMEResult)
    always = entry.baselines["always-yes"]
    assert always.headline == {"MME perception": scored.perception.score,
                               "MME cognition": scored.cognition.score}
    assert always.breakdowns["acc_plus"] == {name: s.acc_plus for name, s in scored.subtasks.items()}
    assert always.breakdowns["acc"] == {name: s.acc for name, s in scored.subtasks.items()}
    assert not always.expected


def test_always_a_scores_what_a_model_answering_a_scores(runs: dict[str, RunResults]) -> None:
    mmbench = runs["mock:A"].benchmarks["mmbench"]
    scored = mmbench.result_as(MMBenchResult)
    assert scored.overall is not None and scored.vanilla is not None
    assert mmbench.baselines["always-A"].headline == pytest.approx(
        {"MMBench circular": 100 * scored.overall, "MMBench vanilla": 100 * scored.vanilla})
    m3gia = runs["mock:A"].benchmarks["m3gia"]
    for language, scores in m3gia.result["per_language"].items():
        label = f"M3GIA {language} overall"
        assert m3gia.baselines["always-A"].headline[label] == pytest.approx(100 * scores["overall"]["mean"])


def test_baselines_do_not_depend_on_the_model(runs: dict[str, RunResults]) -> None:
    for name in ("mme", "mmbench", "m3gia"):
        assert runs["mock:Yes"].benchmarks[name].baselines == runs["mock:A"].benchmarks[name].baselines


def test_mme_chance_is_acc_50_and_acc_plus_25_per_subtask(runs: dict[str, RunResults]) -> None:
    entry = runs["mock:Yes"].benchmarks["mme"]
    chance = entry.baselines["chance"]
    subtasks = set(entry.result["subtasks"])
    assert chance.expected
    assert chance.headline["MME perception"] == pytest.approx(75.0 * len(subtasks & set(PERCEPTION)))
    assert chance.headline["MME cognition"] == pytest.approx(75.0 * len(subtasks & set(COGNITION)))
    assert chance.breakdowns["acc"] == pytest.approx(dict.fromkeys(subtasks, 50.0))
    assert chance.breakdowns["acc_plus"] == pytest.approx(dict.fromkeys(subtasks, 25.0))


def test_mmbench_chance_is_one_in_n_per_copy_and_one_in_n_to_the_copies_per_group(
    runs: dict[str, RunResults], tmp_path: Path
) -> None:
    groups: dict[int, list[Sample]] = defaultdict(list)
    for sample in samples("mmbench", tmp_path):
        groups[int(sample.metadata["g_index"])].append(sample)
    vanilla = circular = Fraction(0)
    for members in groups.values():
        n = len(members[0].options)
        vanilla += Fraction(1, n)
        circular += Fraction(1, n) ** len(members)
    chance = runs["mock:Yes"].benchmarks["mmbench"].baselines["chance"]
    assert chance.headline["MMBench vanilla"] == pytest.approx(float(100 * vanilla / len(groups)))
    assert chance.headline["MMBench circular"] == pytest.approx(float(100 * circular / len(groups)))


def test_m3gia_chance_and_most_frequent_letter_by_hand(runs: dict[str, RunResults], tmp_path: Path) -> None:
    by_language: dict[str, list[Sample]] = defaultdict(list)
    for sample in samples("m3gia", tmp_path):
        by_language[str(sample.metadata["language"])].append(sample)
    baselines = runs["mock:Yes"].benchmarks["m3gia"].baselines
    answers = [str(s.answer) for found in by_language.values() for s in found]
    letter = min(set(answers), key=lambda a: (-answers.count(a), a))
    assert baselines["most-frequent"].description.startswith(f"answers '{letter}'")
    for language, found in by_language.items():
        label = f"M3GIA {language} overall"
        expected = sum(Fraction(1, len(s.options)) for s in found) / len(found)
        assert baselines["chance"].headline[label] == pytest.approx(float(100 * expected))
        hits = sum(s.answer == letter for s in found) / len(found)
        assert baselines["most-frequent"].headline[label] == pytest.approx(100 * hits)


def record(sample_id: str, target: str, unit: str = "") -> SampleRecord:
    return SampleRecord(benchmark="quiz", sample_id=sample_id, fingerprint="f", prompt="?",
                        response=ModelResponse(text="yes"), target=target,
                        metadata={"category": "c", "image": unit})


def test_answer_sets_give_each_unit_its_own_distribution_exactly() -> None:
    bench = get_benchmark("mme")
    thirds = Baseline("x", "", lambda r: [("A", Fraction(1, 3)), ("B", Fraction(2, 3))]
                      if r.target == "A" else [("yes", Fraction(1, 2)), ("no", Fraction(1, 2))],
                      expected=True)
    records = [record("1", "A", "i"), record("2", "yes", "j"), record("3", "no", "j")]
    sets = answer_sets(bench, records, thirds)
    assert sets is not None and sum(weight for weight, _ in sets) == 1
    marginal: dict[tuple[int, str], Fraction] = defaultdict(Fraction)
    for weight, answers in sets:
        for i, answer in enumerate(answers):
            marginal[(i, answer)] += weight
    assert marginal[(0, "A")] == Fraction(1, 3) and marginal[(0, "B")] == Fraction(2, 3)
    assert marginal[(1, "yes")] == marginal[(1, "no")] == Fraction(1, 2)


class Quiz(YesNoBenchmark):
    name = "quiz"
    description = "yes/no questions"


def test_yes_no_chance_states_accuracy_and_leaves_f1_out() -> None:
    bench = Quiz()
    records = [record("1", "yes"), record("2", "no"), record("3", "yes")]
    found = score_baselines(bench, records)
    assert set(found) == {baseline.name for baseline in yes_no_baselines()}
    assert found["always-yes"].headline == pytest.approx({"quiz accuracy": 100 * 2 / 3, "quiz F1": 80.0})
    assert found["always-no"].headline == pytest.approx({"quiz accuracy": 100 / 3})
    assert found["chance"].headline == pytest.approx({"quiz accuracy": 50.0})


def test_a_benchmark_without_baselines_has_none() -> None:
    class Plain(Quiz):
        def baselines(self, records):  # type: ignore[no-untyped-def]
            return []

    assert score_baselines(Plain(), [record("1", "yes")]) == {}


def test_mmbench_scores_answer_sets_from_its_columns_as_score_scores_answered_copies(tmp_path: Path) -> None:
    """MMBench reads the columns that do not depend on the answers once for every answer set; its numbers
    are those of `score` over copies of the records answered so (the default every benchmark has)."""
    from mmgauge.benchmarks.base import Benchmark

    out = tmp_path / "run"
    mmgauge.evaluate(model="mock:B", benchmarks="mmbench", out=out, cache=False)
    records = list(mmgauge.load_run(out).record_list("mmbench"))
    # A failed request and a record of another round: the answer sets answer both, as copies do.
    failed = {"response": ModelResponse(error="timeout"), "extraction": None}
    records[3] = records[3].model_copy(update=failed)
    records.append(records[0].model_copy(update={"round": 1}))
    bench = get_benchmark("mmbench")
    sets: list[list[str]] = []
    for baseline in bench.baselines(records):
        found = answer_sets(bench, records, baseline)
        assert found is not None
        sets += [answers for _, answers in found]
    assert len(sets) > 3
    sets.append(["" if i % 5 == 0 else "C" for i in range(len(records))])  # unread answers
    columns = bench.baseline_numbers(records, sets)
    copies = Benchmark.baseline_numbers(bench, records, sets)
    assert columns == copies
    assert len({str(numbers.headline) for numbers in columns}) > 2  # the sets do differ
