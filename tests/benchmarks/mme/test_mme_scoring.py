"""MME scoring on hand-made items whose scores are derived by hand in the comments."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mmgauge.benchmarks.mme.official import read_results_folder
from mmgauge.benchmarks.mme.scoring import COGNITION, PERCEPTION, MMEItem, score_mme
from mmgauge.stats.proportion import proportion_interval

TEMPLATE = Path(__file__).resolve().parents[2] / "fixtures" / "mme" / "official_template"


def pair(subtask: str, image: str, yes_answer: str | None, no_answer: str | None) -> list[MMEItem]:
    return [MMEItem(subtask, image, "yes", yes_answer), MMEItem(subtask, image, "no", no_answer)]


def test_hand_derived_scores() -> None:
    items = [
        *pair("existence", "a", "yes", "no"),  # both right
        *pair("existence", "b", "yes", "yes"),  # one right
        *pair("count", "a", None, "no"),  # one right, one other
        *pair("count", "b", None, None),  # none right, two other
        *pair("count", "c", "yes", "no"),  # both right
        *pair("code_reasoning", "a", "yes", "no"),
    ]
    result = score_mme(items, parser="official")
    existence = result.subtasks["existence"]
    # acc 3/4 = 75, acc+ 1/2 = 50, score 125; yes answers 3 of 4
    assert (existence.acc, existence.acc_plus, existence.score) == (75.0, 50.0, 125.0)
    assert (existence.other, existence.yes_ratio) == (0, 0.75)
    count = result.subtasks["count"]
    # acc 3/6 = 50, acc+ 1/3 = 33.33.., other 3; of the 3 answers read as yes or no, 1 is yes
    assert count.acc == 50.0
    assert math.isclose(count.acc_plus, 100 / 3)
    assert math.isclose(count.score, 50 + 100 / 3)
    assert (count.other, count.yes_ratio) == (3, 1 / 3)
    # perception = 125 + 83.33.. (partial: 8 subtasks missing); cognition = 200 (3 missing)
    assert math.isclose(result.perception.score, 125 + 50 + 100 / 3)
    assert result.perception.partial
    assert result.perception.missing == [s for s in PERCEPTION if s not in ("existence", "count")]
    assert result.cognition.score == 200.0
    assert result.cognition.missing == [s for s in COGNITION if s != "code_reasoning"]
    assert result.other == 3 and result.failed == 0 and result.questions == 12
    official = result.official_json()
    assert set(official) == {"perception", "cognition", "subtasks"}
    assert set(official["subtasks"]["count"]) == {"acc", "acc_plus", "score", "other", "yes_ratio"}  # type: ignore[index]


def test_failed_questions_are_not_scored_and_mark_the_subtask_incomplete() -> None:
    items = [
        *pair("OCR", "a", "yes", "no"),
        MMEItem("OCR", "b", "yes", None, "failed", failed=True),
        MMEItem("OCR", "b", "no", "yes"),
        *pair("OCR", "c", "no", "no"),
    ]
    score = score_mme(items, parser="official").subtasks["OCR"]
    # 5 answered: right a.yes a.no c.no -> acc 3/5 = 60; acc+ over a and c only -> 1/2 = 50
    assert (score.acc, score.acc_plus, score.failed, score.complete) == (60.0, 50.0, 1, False)
    result = score_mme(items, parser="official")
    assert result.perception.incomplete == ["OCR"] and result.perception.partial
    assert result.failed == 1


def test_subtask_with_every_request_failed_is_missing() -> None:
    items = [MMEItem("OCR", "a", t, None, "failed", failed=True) for t in ("yes", "no")]
    result = score_mme(items, parser="official")
    assert "OCR" not in result.subtasks and "OCR" in result.perception.missing
    assert result.perception.score == 0.0 and result.perception.ci_low is None


def test_bootstrap_is_seeded_and_brackets_the_score() -> None:
    items = [item for i in range(20) for item in pair("scene", str(i), "yes", "no" if i % 3 else "yes")]
    first = score_mme(items, parser="official", seed=7)
    again = score_mme(items, parser="official", seed=7)
    assert first.perception.ci_low == again.perception.ci_low
    assert first.perception.ci_low is not None and first.perception.ci_high is not None
    assert first.perception.ci_low <= first.perception.score <= first.perception.ci_high
    assert first.perception.ci_low < first.perception.ci_high
    # A subtask's draws do not depend on the other subtasks present.
    more = score_mme([*items, *pair("code_reasoning", "x", "yes", "no")], parser="official", seed=7)
    assert more.perception.ci_low == first.perception.ci_low


def test_bad_items_are_rejected() -> None:
    with pytest.raises(ValueError, match="not an MME subtask"):
        score_mme([MMEItem("colour", "a", "yes", "yes")], parser="official")
    with pytest.raises(ValueError, match="more than two"):
        score_mme([*pair("color", "a", "yes", "no"), MMEItem("color", "a", "yes", "yes")], parser="official")
    with pytest.raises(ValueError, match="ground truth"):
        score_mme([MMEItem("color", "a", "Yes", "yes")], parser="official")


def test_always_yes_on_the_official_template(tmp_path: Path) -> None:
    """A model that always says yes: acc 50, acc+ 0, yes-ratio 1.0 in every subtask (the template pairs one
    Yes with one No question per image, so exactly one of each pair is right)."""
    for source in TEMPLATE.glob("*.txt"):
        lines = source.read_text(encoding="utf-8").splitlines()
        (tmp_path / source.name).write_text("".join(f"{line}\tYes\n" for line in lines), encoding="utf-8")
    result = score_mme(read_results_folder(tmp_path, "official"), parser="official")
    assert len(result.subtasks) == 14 and result.questions == 2374
    for name, score in result.subtasks.items():
        assert (score.acc, score.acc_plus, score.yes_ratio, score.other) == (50.0, 0.0, 1.0, 0), name
    assert (result.perception.score, result.cognition.score) == (500.0, 200.0)
    assert not result.perception.partial and not result.cognition.partial
    # Every resample gives the same score, so the bare percentile bootstrap collapsed onto 500 (the former
    # pinned result). The interval is now the MOVER floor of the Clopper-Pearson intervals: per subtask acc
    # (50%) and acc+ (0%) move together (correlation taken as 1, since neither varies), subtasks add in
    # quadrature.
    down = up = 0.0
    for name in PERCEPTION:
        s = result.subtasks[name]
        acc = proportion_interval(s.questions // 2, s.questions).scaled(100)
        plus = proportion_interval(0, s.images).scaled(100)
        down += (50 - acc.low) ** 2
        up += (acc.high - 50 + plus.high) ** 2
    ci = result.perception.ci
    assert ci is not None and ci.n == 1057 and ci.unit == "images"
    assert ci.low == pytest.approx(500 - math.sqrt(down), abs=1e-9)
    assert ci.high == pytest.approx(500 + math.sqrt(up), abs=1e-9)
    assert (result.perception.ci_low, result.perception.ci_high) == (ci.low, ci.high)


def test_ten_questions_all_right_give_an_honest_interval_not_a_point() -> None:
    """The case that used to print `100.00-100.00`: 5 images, all 10 questions right."""
    items = [item for i in range(5) for item in pair("code_reasoning", str(i), "yes", "no")]
    result = score_mme(items, parser="official")
    s = result.subtasks["code_reasoning"]
    assert (s.acc, s.acc_plus, s.score) == (100.0, 100.0, 200.0)
    assert s.acc_ci is not None and s.acc_plus_ci is not None and s.score_ci is not None
    # Clopper-Pearson, 10 of 10: [0.025^(1/10), 1]; 5 of 5 images: [0.025^(1/5), 1].
    assert (s.acc_ci.high, s.acc_ci.n, s.acc_ci.unit) == (100.0, 10, "questions")
    assert s.acc_ci.low == pytest.approx(100 * 0.025 ** (1 / 10), rel=1e-12)
    assert s.acc_plus_ci.low == pytest.approx(100 * 0.025 ** (1 / 5), rel=1e-12) and s.acc_plus_ci.n == 5
    # The bootstrap never varies, so acc and acc+ count as fully correlated: their distances add up.
    expected_low = 200 - (100 - s.acc_ci.low) - (100 - s.acc_plus_ci.low)
    assert (s.score_ci.low, s.score_ci.high) == (pytest.approx(expected_low, rel=1e-12), 200.0)
    cognition = result.cognition.ci
    assert cognition is not None and cognition.high == 200.0 and cognition.low == s.score_ci.low
    assert cognition.n == 5 and cognition.method == "bootstrap-images+mover-clopper-pearson"


def test_composite_interval_follows_the_bootstrap_where_data_vary() -> None:
    """On 200 images of varied outcomes the floor adds little: the interval is close to normal theory."""
    rng = np.random.default_rng(0)
    items = [MMEItem("scene", str(i), truth, truth if rng.random() < 0.8 else "other")
             for i in range(200) for truth in ("yes", "no")]
    items = [MMEItem(i.subtask, i.image, i.truth, None if i.answer == "other" else i.answer) for i in items]
    result = score_mme(items, parser="official", resamples=4000)
    s = result.subtasks["scene"]
    assert s.score_ci is not None
    per_image = np.array([[q.answer == q.truth for q in items[2 * i: 2 * i + 2]] for i in range(200)])
    contribution = 100 * (per_image.mean(axis=1) + per_image.all(axis=1))  # image's share of the score
    half = 1.96 * contribution.std() / math.sqrt(200)
    assert s.score_ci.low < s.score < s.score_ci.high
    assert (s.score_ci.high - s.score_ci.low) / 2 == pytest.approx(half, rel=0.12)


def test_no_resamples_means_no_composite_intervals_but_proportion_ones() -> None:
    items = [item for i in range(5) for item in pair("OCR", str(i), "yes", "yes")]
    result = score_mme(items, parser="official", resamples=0)
    assert result.perception.ci is None and result.perception.ci_low is None
    assert result.subtasks["OCR"].score_ci is None and result.subtasks["OCR"].acc_ci is not None


def test_a_results_folder_scores_the_same_in_file_order_and_shuffled() -> None:
    items = [MMEItem(subtask, f"{subtask}-{image}", truth, answer)
             for subtask in ("OCR", "existence", "code_reasoning")
             for image in range(30)
             for truth, answer in (("yes", "yes" if image % 3 else "no"),
                                   ("no", "no" if image % 7 else None))]
    shuffled = [items[number] for number in np.random.default_rng(3).permutation(len(items))]
    in_order = score_mme(items, parser="official")
    assert in_order.model_dump() == score_mme(shuffled, parser="official").model_dump()


def test_the_scoring_holds_neither_arrow_nor_formatting() -> None:
    # As for `scoring/` (tests/test_architecture.py): records in, numbers out; arrow kernels are datasources',
    # numbers as text textformat's.
    import ast

    folder = Path(__file__).resolve().parents[3] / "src" / "mmgauge" / "benchmarks" / "mme"
    for path in (folder / "scoring.py", folder / "scoring_rows.py"):
        nodes = list(ast.walk(ast.parse(path.read_text(encoding="utf-8"))))
        names = [alias.name for node in nodes if isinstance(node, ast.Import) for alias in node.names]
        names += [node.module or "" for node in nodes if isinstance(node, ast.ImportFrom)]
        assert names and not [n for n in names if n.startswith(("pyarrow", "mmgauge.textformat", "orjson"))]
