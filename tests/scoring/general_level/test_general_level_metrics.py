"""The metric registry: every mapping, name matching, domains, and the release's variant."""

from __future__ import annotations

import math

import pytest

from mmgauge.core.errors import UserError
from mmgauge.general_level import load_specialist_table
from mmgauge.scoring.general_level.metrics import (
    REGISTRY,
    MetricDomainError,
    MetricKind,
    find_metric,
    lookup_metric,
    normalize,
    release_nlp_rmse,
    release_normalize,
)

SIGMOID_T = {
    "MAE": 50, "RMS": 50, "MSE": 5, "RMSE": 5, "ABSREL": 0.1, "EPE": 1, "FID": 25, "FVD": 100,
    "FAD": 10, "SAD": 10, "RTE": 0.5, "CD": 1, "MCD": 5,
}  # fmt: skip


@pytest.mark.parametrize(("name", "t"), sorted(SIGMOID_T.items()))
def test_lower_is_better_uses_two_sigmoid_minus_one(name: str, t: float) -> None:
    metric = lookup_metric(name)
    assert metric.kind is MetricKind.SIGMOID and metric.t == t and not metric.higher_is_better
    # At x = T the rule gives 2*sigmoid(1) - 1 = tanh(1/2).
    assert normalize(metric, t).value == pytest.approx(100 * math.tanh(0.5))
    assert normalize(metric, 2 * t).value == pytest.approx(100 * math.tanh(0.25))


def test_lower_is_better_at_zero_is_perfect_and_negative_is_an_error() -> None:
    fid = lookup_metric("FID")
    result = normalize(fid, 0.0)
    assert result.value == 100.0 and result.note is not None
    # Tiny values approach 100 continuously, so 0 is the limit, not a special case picked by hand.
    assert normalize(fid, 1e-9).value == pytest.approx(100.0)
    with pytest.raises(MetricDomainError):
        normalize(fid, -1.0)


def test_psnr_ms_ssim_mos_and_identity() -> None:
    assert normalize(lookup_metric("PSNR"), 20.0).value == pytest.approx(100 * math.tanh(1.0))
    assert normalize(lookup_metric("MS-SSIM"), 0.542).value == pytest.approx(77.1)
    assert normalize(lookup_metric("MOS"), 3.82).value == pytest.approx(70.5)
    assert normalize(lookup_metric("Acc"), 42.5).value == 42.5
    for name, bad in (("MOS", 0.5), ("MS-SSIM", 1.5), ("Acc", 101.0), ("Acc", -1.0), ("PSNR", -3.0)):
        with pytest.raises(MetricDomainError):
            normalize(lookup_metric(name), bad)


def test_wer_as_fraction_or_percentage() -> None:
    wer = lookup_metric("WER")
    assert normalize(wer, 0.056).value == pytest.approx(94.4)  # a fraction
    as_percent = normalize(wer, 5.6)  # the specialist table writes WER like this
    assert as_percent.value == pytest.approx(94.4) and as_percent.note is not None
    assert normalize(wer, 0.0).value == 100.0
    assert normalize(wer, 1.0).value == 0.0  # 1 is read as a fraction: 100% errors
    assert normalize(wer, 130.0).value == 0.0  # above 100% (insertions) is clamped


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("CD (Chamfer Distance)", "CD"),
        ("cd", "CD"),
        ("Chamfer Distance", "CD"),
        ("RTE ( Relative Translation Error)", "RTE"),
        ("Relative Translation Error (RTE)", "RTE"),
        ("  rte  ", "RTE"),
        ("absRel", "absRel"),
        ("ABS REL", "absRel"),
        ("ms ssim", "MS-SSIM"),
        ("Word Error Rate", "WER"),
        ("acc", "Accuracy"),
        ("BLUE_1", "BLEU-1"),
        ("clip  score", "CLIP score"),
        ("AMOTA (Average Multi-Object Tracking Accuracy)", "AMOTA"),
    ],
)
def test_names_match_robustly(written: str, canonical: str) -> None:
    metric = find_metric(written)
    assert metric is not None and metric.name == canonical


def test_unknown_or_contradictory_metric_is_an_error() -> None:
    for name in ("Perplexity", "CD (Word Error Rate)", ""):
        assert find_metric(name) is None
        with pytest.raises(UserError, match="unknown metric"):
            lookup_metric(name)


def test_every_metric_of_the_shipped_table_is_registered_explicitly() -> None:
    names = {t.metric for t in load_specialist_table()}
    assert len(names) == 70
    assert all(find_metric(n) is not None for n in names)
    # Every registry entry is used by the table, so nothing is registered on a guess.
    used = {find_metric(n) for n in names}
    assert set(REGISTRY) == used


def test_l1_distance_is_a_higher_is_better_percentage() -> None:
    # The only "L1 distance" task (Static T2V, SoTA 99.72) is VBench's flicker score (255 - L1) / 255 x 100.
    metric = lookup_metric("L1 distance")
    assert metric.kind is MetricKind.IDENTITY
    assert normalize(metric, 99.72).value == 99.72


def test_release_normalize_reproduces_the_defects() -> None:
    assert release_normalize("CD (Chamfer Distance)", 0.217) == 0.217  # not matched: taken as is
    assert release_normalize("Acc", None) is None  # a plain missing value stays missing
    assert release_normalize("FID", None) == 0.0  # a missing special value becomes 0
    assert release_normalize("FID", 0.0) == 0.0  # and so does a perfect 0
    assert release_normalize("WER", 5.6) == pytest.approx(-460.0)  # 1 - x on a percentage
    assert release_normalize("absRel", 0.1) == pytest.approx(100 * math.tanh(0.5))  # upper-cased: matched
    with pytest.raises(MetricDomainError):
        release_normalize("PSNR", -1.0)
    assert release_nlp_rmse(None) == 0.0
    assert release_nlp_rmse(5.0) == pytest.approx(100 * math.tanh(0.5))
    with pytest.raises(MetricDomainError):
        release_nlp_rmse(0.0)
