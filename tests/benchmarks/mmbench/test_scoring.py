"""CircularEval scoring over per-copy outcomes (pure)."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.benchmarks.mmbench.scoring import bootstrap_ci, score_columns


def score(correct: list[bool], methods: list[str], **kw: object) -> object:
    group = np.array([1, 1, 1, 2, 2, 3, 3, 3, 3], dtype=np.int64)
    copy = np.array([0, 1, 2, 0, 1, 0, 1, 2, 3], dtype=np.int64)
    n = np.array([3, 3, 3, 2, 2, 4, 4, 4, 4], dtype=np.int64)
    labels = np.array(["ocr"] * 3 + ["image_scene"] * 2 + ["ocr"] * 4, dtype=object)
    l2 = np.array(
        ["finegrained_perception (instance-level)"] * 3
        + ["coarse_perception"] * 2
        + ["finegrained_perception (instance-level)"] * 4,
        dtype=object,
    )
    split = np.array(["dev"] * 9, dtype=object)
    return score_columns(
        group=group,
        copy=copy,
        n_copies=n,
        correct=np.array(correct),
        method=methods,
        has_answer=np.ones(9, dtype=bool),
        category=labels,
        l2=l2,
        split=split,
        **kw,
    )


def test_group_right_only_when_every_copy_is() -> None:
    correct = [True, True, True, True, False, True, True, True, True]
    methods = ["rule-letter"] * 4 + ["unresolved"] + ["rule-letter"] * 4
    result = score(correct, methods)
    assert result.groups == {"1": 1, "2": 0, "3": 1}  # type: ignore[attr-defined]
    assert result.overall == 2 / 3 and result.overall_pct == 66.67  # type: ignore[attr-defined]
    assert result.vanilla == 1.0  # type: ignore[attr-defined]
    assert result.l2 == {"CP": 0.0, "FP-S": 1.0}  # type: ignore[attr-defined]
    assert result.category == {"image_scene": 0.0, "ocr": 1.0}  # type: ignore[attr-defined]
    assert result.split == {"dev": 2 / 3}  # type: ignore[attr-defined]
    assert result.extraction == {"rule-letter": 8, "unresolved": 1}  # type: ignore[attr-defined]
    assert (result.unresolved, result.unresolved_groups) == (1, 1)  # type: ignore[attr-defined]


def test_missing_copy_makes_group_wrong() -> None:
    group = np.array([1, 1], dtype=np.int64)
    result = score_columns(
        group=group,
        copy=np.array([0, 1]),
        n_copies=np.array([3, 3]),
        correct=np.array([True, True]),
        method=["rule-letter"] * 2,
        has_answer=np.array([True, True]),
        category=np.array(["c", "c"], dtype=object),
        l2=np.array(["", ""], dtype=object),
        split=np.array(["", ""], dtype=object),
    )
    assert result.overall == 0.0 and result.incomplete_groups == 1


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    low, high = bootstrap_ci(700, 1000, seed=0)
    assert (low, high) == bootstrap_ci(700, 1000, seed=0)
    assert 0.66 < low < 0.7 < high < 0.74


def test_vanilla_has_its_own_interval() -> None:
    from mmgauge.benchmarks.mmbench.scoring import bootstrap_ci

    # 40 of 50 first copies right: the interval is around 0.8 and the same for the same seed.
    low, high = bootstrap_ci(40, 50, seed=1)
    assert low < 0.8 < high and bootstrap_ci(40, 50, seed=1) == (low, high)


def test_all_wrong_groups_get_an_exact_interval_not_a_point() -> None:
    """The case that used to print `0.00% (95% CI 0.00-0.00)`: 3 groups, every one wrong."""
    result = score([False] * 9, ["rule-letter"] * 9)
    assert result.overall == 0.0  # type: ignore[attr-defined]
    ci = result.overall_ci  # type: ignore[attr-defined]
    # Clopper-Pearson, 0 of 3: [0, 1 - 0.025^(1/3)].
    assert (ci.low, ci.n, ci.method) == (0.0, 3, "clopper-pearson")
    assert ci.high == pytest.approx(1 - 0.025 ** (1 / 3), rel=1e-12)
    assert result.overall_ci95 == (ci.low, ci.high)  # type: ignore[attr-defined]
    assert result.vanilla_ci.n == 3 and result.vanilla_ci.high > 0.5  # type: ignore[attr-defined]


def test_every_breakdown_has_its_interval() -> None:
    correct = [True, True, True, True, False, True, True, True, True]
    result = score(correct, ["rule-letter"] * 9)
    # FP-S: groups 1 and 3, both right; CP: both right of 2 -> [0.025^(1/2), 1]. CP: group 2, wrong.
    fps, cp = result.l2_ci["FP-S"], result.l2_ci["CP"]  # type: ignore[attr-defined]
    assert (fps.n, fps.high) == (2, 1.0) and fps.low == pytest.approx(0.025 ** 0.5, rel=1e-12)
    assert (cp.n, cp.low) == (1, 0.0) and cp.high == pytest.approx(0.975, rel=1e-12)
    assert set(result.category_ci) == {"image_scene", "ocr"}  # type: ignore[attr-defined]
    assert result.split_ci["dev"].n == 3  # type: ignore[attr-defined]
