"""M3GIA scoring on hand-made sets whose numbers are derived by hand below."""

from __future__ import annotations

import math
from importlib import resources

import numpy as np
import pandas as pd
import pytest

from mmgauge.benchmarks.m3gia.data import answer_table, factor_table
from mmgauge.benchmarks.m3gia.gia import compute_gia
from mmgauge.benchmarks.m3gia.scoring import COUNT_COLUMNS, TYPES, Item, score_items, score_m3gia
from mmgauge.core.types import Extraction, ModelResponse, SampleRecord

# (question id, correct) in English; types and factors are the release's for these ids:
#   1, 2 Oral Vocabulary [Gc]; 16 General Information [Gc]; 151, 152 Algebra [Gf Gq RQ];
#   211 Number Seres [Gf RQ I]; 261 Real-world Reasoning [Gf RG]; 281 Syllogism Problem [Gf Gc RG]
HAND = [("1", True), ("2", False), ("16", True), ("151", True), ("152", False), ("211", True),
        ("261", False), ("281", True)]


def items(rows: list[tuple[str, bool]], language: str = "english", round: int = 0) -> list[Item]:
    truths, factors = answer_table(language), factor_table(language)
    return [Item(language, qid, truths[qid].question_type, factors[qid], round, ok) for qid, ok in rows]


def test_factor_type_cluster_and_overall_accuracy_by_hand() -> None:
    scores = score_items(items(HAND)).per_language["english"]
    factors = {name: s.mean for name, s in scores.factors.items()}
    assert factors == pytest.approx({
        "Gc": 3 / 4,  # 1 ok, 2 wrong, 16 ok, 281 ok
        "Gq": 1 / 2,  # 151 ok, 152 wrong
        "RQ": 2 / 3,  # 151 ok, 152 wrong, 211 ok
        "Gf": 3 / 5,  # 151 ok, 152 wrong, 211 ok, 261 wrong, 281 ok
        "I": 1.0,  # 211 ok
        "RG": 1 / 2,  # 261 wrong, 281 ok
    })  # Gv and Grw label none of these questions, so they are absent, not 0
    assert scores.overall.mean == pytest.approx(5 / 8)
    assert scores.types["Oral Vocabulary"].mean == pytest.approx(1 / 2)
    assert scores.types["Number Seres"].mean == 1.0  # the release's spelling is the key
    # Instance-weighted: Common Sense is 2 of 3 questions, not the mean of its types (1/2 and 1/1 -> 3/4).
    assert scores.clusters["Common Sense"].mean == pytest.approx(2 / 3)
    assert scores.clusters["Mathematics"].mean == pytest.approx(1 / 2)
    assert scores.clusters["Reasoning"].mean == pytest.approx(2 / 3)  # 211 ok, 261 wrong, 281 ok
    assert set(scores.clusters) == {"Common Sense", "Mathematics", "Reasoning"}


def test_counts_are_correct_answers_per_type_in_the_published_order() -> None:
    scores = score_items(items(HAND)).per_language["english"]
    assert list(scores.counts) == list(COUNT_COLUMNS)
    counts = {column: s.mean for column, s in scores.counts.items() if s.mean}
    assert counts == {"Oral_Vocab": 1, "General_Info": 1, "Algebra": 1, "Number_Series": 1, "Syllogism": 1}


def test_count_columns_match_the_published_cfa_data() -> None:
    text = (resources.files("mmgauge") / "data" / "m3gia" / "cfa" / "en.csv").read_text("utf-8")
    header = text.splitlines()[0].split(",")
    assert tuple(header[1:19]) == COUNT_COLUMNS
    assert len(TYPES) == 18


def test_rounds_give_mean_and_sample_standard_deviation() -> None:
    all_right = [(qid, True) for qid, _ in HAND]
    result = score_items(items(HAND, round=0) + items(all_right, round=1))
    overall = result.per_language["english"].overall
    # Round 0: 5/8 = 0.625, round 1: 8/8 = 1.0 -> mean 0.8125, sample SD |1 - 0.625| / sqrt(2).
    assert overall.rounds == [0.625, 1.0]
    assert overall.mean == pytest.approx(0.8125)
    assert overall.std == pytest.approx(0.375 / math.sqrt(2))
    assert result.rounds == 2
    gc = result.per_language["english"].factors["Gc"]
    assert gc.rounds == pytest.approx([3 / 4, 1.0])
    single = score_items(items(HAND)).per_language["english"].overall
    assert single.std is None  # one round has no spread


def test_mean_over_languages_and_partial_runs_have_no_gia() -> None:
    result = score_items(items(HAND) + items([("1", False), ("2", True)], "french"),
                         languages=["english", "french"])
    assert result.languages == ["english", "french"]
    assert result.mean is not None
    assert result.mean.overall.mean == pytest.approx((5 / 8 + 1 / 2) / 2)
    assert result.mean.factors["Gc"].mean == pytest.approx((3 / 4 + 1 / 2) / 2)
    assert result.mean.factors["RG"].mean == pytest.approx(1 / 2)  # only English has RG questions
    english = result.per_language["english"]
    assert english.gia is None and not english.complete
    assert english.gia_note is not None and "8 of the 300" in english.gia_note
    assert any(note.startswith("english: GIA not computed") for note in result.notes)


def full_run(language: str, round: int = 0, wrong_every: int = 3) -> list[Item]:
    truths, factors = answer_table(language), factor_table(language)
    return [Item(language, qid, truth.question_type, factors.get(qid, ()), round, int(qid) % wrong_every != 0)
            for qid, truth in truths.items()]


def test_full_run_gets_the_gia_of_the_published_model() -> None:
    result = score_items(full_run("english") + full_run("english", round=1, wrong_every=2))
    english = result.per_language["english"]
    assert english.complete and english.questions == 300
    assert english.gia is not None
    counts = pd.DataFrame([[english.counts[c].rounds[r] for c in COUNT_COLUMNS] for r in range(2)],
                          columns=list(COUNT_COLUMNS))
    expected = compute_gia(counts, "english")
    assert english.gia.gia.rounds == pytest.approx([row.gia for row in expected.rows])
    assert english.gia.gia_normalised.rounds == pytest.approx([row.gia_normalised for row in expected.rows])
    assert english.gia.human_gia == pytest.approx(16.01)
    assert english.gia.gia.std is not None
    # The release publishes no raw human statistics, so the standardised scale says why it is missing.
    assert english.gia.gia_standardised is None and english.gia.standardised_note


def test_one_missing_question_in_one_round_blocks_the_gia() -> None:
    result = score_items(full_run("english") + full_run("english", round=1)[1:])
    english = result.per_language["english"]
    assert english.gia is None and english.gia_note is not None and "round 1" in english.gia_note


def record(qid: str, text: str | None, answer: str | None, method: str, correct: bool | None) -> SampleRecord:
    truths, factors = answer_table("english"), factor_table("english")
    response = ModelResponse(text=text) if text is not None else ModelResponse(error="timeout")
    return SampleRecord(
        benchmark="m3gia", sample_id=f"english/{qid}", fingerprint="f", prompt="p", response=response,
        extraction=Extraction(answer=answer, method=method) if text is not None else None,
        target=truths[qid].answer, correct=correct,
        metadata={"language": "english", "question_id": qid, "question_type": truths[qid].question_type,
                  "factors": list(factors[qid])},
    )


def test_records_failed_requests_are_not_scored_and_methods_are_counted() -> None:
    result = score_m3gia([
        record("1", "(D)", "D", "paren", True),
        record("2", "no idea", None, "unresolved", False),
        record("16", None, None, "", None),
    ])
    assert result.failed == 1
    assert result.methods == {"failed-request": 1, "paren": 1, "unresolved": 1}
    assert result.per_language["english"].overall.mean == pytest.approx(1 / 2)  # unresolved counts wrong
    assert "1 failed requests are not scored" in result.notes


def test_overall_accuracy_has_a_seeded_bootstrap_interval() -> None:
    from mmgauge.benchmarks.m3gia.scoring import bootstrap_ci95

    per_question = np.array([1.0] * 30 + [0.0] * 10)  # accuracy 0.75 over 40 questions
    low, high = bootstrap_ci95(per_question, seed=1) or (0.0, 0.0)
    assert low < 0.75 < high
    # The normal approximation gives 0.75 +- 1.96 * sqrt(0.75 * 0.25 / 40) = [0.616, 0.884].
    assert abs(low - 0.616) < 0.04 and abs(high - 0.884) < 0.04
    assert bootstrap_ci95(per_question, seed=1) == (low, high)
    assert bootstrap_ci95(np.array([]), seed=1) is None
    assert bootstrap_ci95(np.ones(5), seed=3) == (1.0, 1.0)


def test_overall_accuracy_has_an_exact_interval_with_its_n() -> None:
    scores = score_items(items(HAND)).per_language["english"]
    ci = scores.overall_ci
    assert ci is not None and (ci.n, ci.method, ci.unit) == (8, "clopper-pearson", "questions")
    # 5 of 8 right: Clopper-Pearson [0.2449, 0.9148] (Beta quantiles).
    assert [round(x, 4) for x in ci.bounds()] == [0.2449, 0.9148]
    assert scores.overall_ci95 == ci.bounds()


def test_several_rounds_count_each_question_by_its_share_of_right_rounds() -> None:
    from mmgauge.benchmarks.m3gia.scoring import accuracy_interval

    all_right = [(qid, True) for qid, _ in HAND]
    two_rounds = score_items(items(HAND, round=0) + items(all_right, round=1)).per_language["english"]
    ci = two_rounds.overall_ci
    # 13 right answers in 16 over 8 questions: 6.5 of 8, between the intervals of 6 and 7 of 8.
    assert ci is not None and ci.n == 8
    assert accuracy_interval(np.array([0.5] * 3 + [1.0] * 5)) == ci
    six = accuracy_interval(np.array([1.0] * 6 + [0.0] * 2))
    seven = accuracy_interval(np.array([1.0] * 7 + [0.0]))
    assert six is not None and seven is not None and six.low < ci.low < seven.low
    assert accuracy_interval(np.array([])) is None
    all_right_ci = accuracy_interval(np.ones(10))
    assert all_right_ci is not None and all_right_ci.high == 1.0 and all_right_ci.low < 0.7
