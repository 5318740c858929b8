"""Cohen's kappa against statsmodels, and the cases where it says nothing."""

from __future__ import annotations

import numpy as np
import pytest

from mmgauge.stats.agreement import cohen_kappa


def test_kappa_and_its_interval_match_statsmodels() -> None:
    inter_rater = pytest.importorskip(
        "statsmodels.stats.inter_rater", reason="statsmodels (dev extra) is the independent reference")
    rng = np.random.default_rng(4)
    for _ in range(200):
        n, k = int(rng.integers(5, 2000)), int(rng.integers(2, 6))
        first = rng.integers(0, k, n)
        second = np.where(rng.random(n) < rng.uniform(0.2, 0.95), first, rng.integers(0, k, n))
        ours = cohen_kappa([f"c{x}" for x in first], [f"c{x}" for x in second])
        names = sorted({f"c{x}" for x in first} | {f"c{x}" for x in second})
        table = np.zeros((len(names), len(names)))
        np.add.at(table, ([names.index(f"c{x}") for x in first], [names.index(f"c{x}") for x in second]), 1)
        theirs = inter_rater.cohens_kappa(table)
        if ours.kappa is None:
            continue
        assert ours.kappa == pytest.approx(theirs.kappa, rel=1e-9, abs=1e-12)
        assert ours.standard_error == pytest.approx(theirs.std_kappa, rel=1e-8, abs=1e-12)
        assert ours.low == pytest.approx(max(-1.0, theirs.kappa_low), rel=1e-8, abs=1e-12)
        assert ours.high == pytest.approx(min(1.0, theirs.kappa_upp), rel=1e-8, abs=1e-12)


def test_hand_computed_kappa() -> None:
    # 10 items: both "yes" on 4, both "no" on 4, 2 split one each way. p_o = 0.8; marginals 0.5 / 0.5
    # each, so p_e = 0.5 and kappa = (0.8 - 0.5) / 0.5 = 0.6.
    first = ["yes"] * 4 + ["no"] * 4 + ["yes", "no"]
    second = ["yes"] * 4 + ["no"] * 4 + ["no", "yes"]
    result = cohen_kappa(first, second)
    assert result.kappa == pytest.approx(0.6) and result.observed_agreement == pytest.approx(0.8)
    assert result.categories == ["no", "yes"] and result.n == 10
    assert result.low is not None and result.high is not None and result.low < 0.6 < result.high


def test_perfect_agreement_still_reports_an_honest_agreement_interval() -> None:
    labels = ["A", "B"] * 10
    result = cohen_kappa(labels, labels)
    assert result.kappa == 1.0 and result.low == result.high == 1.0  # the Wald interval collapses...
    assert result.agreement_ci.high == 1.0 and result.agreement_ci.low < 0.85  # ...the exact one does not


def test_kappa_is_undefined_when_both_raters_use_one_category() -> None:
    result = cohen_kappa(["yes"] * 5, ["yes"] * 5)
    assert result.kappa is None and result.observed_agreement == 1.0
    with pytest.raises(ValueError, match="one length"):
        cohen_kappa(["a"], ["a", "b"])


def test_kappa_has_no_interval_when_one_rater_never_varies() -> None:
    # The judge says "yes" to everything: kappa is 0 by the formula, with a 0-to-0 interval: a certainty
    # about nothing. No interval, and the rater that never varied is named.
    result = cohen_kappa(["yes"] * 6, ["yes", "no"] * 3)
    assert result.low is None and result.high is None and result.standard_error is None
    assert result.single_category == ["yes", None] and result.observed_agreement == 0.5


def test_the_audit_table_says_why_kappa_is_undefined() -> None:
    from mmgauge.cli.audit import kappa_text

    text = kappa_text(cohen_kappa(["yes"] * 6, ["yes", "no"] * 3), ("the judge", "the rules"))
    assert text.startswith("kappa undefined (the judge said 'yes' to every item")
    assert "0.000" not in text and "agree 50.0%" in text
