"""The metric registry of General-Level: direction and mapping of every metric to 0..100, higher is better.

The release's rules (General-Level, ``utils/special_metrix.py`` as described in the reference README):

- lower is better: ``y = 2*sigmoid(T/x) - 1`` with T per metric (MAE 50, RMS 50, MSE 5, RMSE 5, ABSREL 0.1,
  EPE 1, FID 25, FVD 100, FAD 10, SAD 10, RTE 0.5, CD 1, MCD 5);
- PSNR ``y = tanh(x/20)``; WER ``y = 1 - x``; MS-SSIM ``y = (x+1)/2``; MOS ``y = (x-1)/4``;
- then ``x 100``. Every other metric is already 0..100, higher is better, and is taken as is.

Every metric name in the shipped specialist table is registered explicitly, so a name the registry does not
know is an error rather than a silent "probably a percentage". Names are matched without regard to case,
spacing, ``-``/``_`` and a parenthesised long name, so ``"CD (Chamfer Distance)"``, ``"cd"`` and
``"Chamfer Distance"`` are the same metric.

Two entry points: :func:`normalize` is this toolkit's (corrected) mapping, which checks the value's domain;
:func:`release_normalize` reproduces the release's scorer, defects included, for ``official`` mode.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import NamedTuple

from mmgauge.core.errors import UserError


class MetricKind(str, Enum):
    """How a raw value is mapped to 0..100."""

    IDENTITY = "identity"
    SIGMOID = "sigmoid"  # lower is better: 2*sigmoid(T/x) - 1
    PSNR = "psnr"  # tanh(x/20)
    WER = "wer"  # 1 - x
    MS_SSIM = "ms_ssim"  # (x+1)/2
    MOS = "mos"  # (x-1)/4


@dataclass(frozen=True)
class Metric:
    """One registered metric. ``t`` is the temperature of the sigmoid rule (None for the other kinds)."""

    name: str
    kind: MetricKind
    t: float | None = None
    aliases: tuple[str, ...] = field(default=())

    @property
    def higher_is_better(self) -> bool:
        return self.kind is not MetricKind.SIGMOID and self.kind is not MetricKind.WER

    @property
    def special(self) -> bool:
        """True when the raw value is not already a 0..100 higher-is-better score."""
        return self.kind is not MetricKind.IDENTITY


class MetricDomainError(ValueError):
    """A value outside the domain of its metric (the caller adds sheet, row and column)."""


class Normalized(NamedTuple):
    value: float
    note: str | None


def _identity(name: str, *aliases: str) -> Metric:
    return Metric(name, MetricKind.IDENTITY, None, aliases)


def _sigmoid(name: str, t: float, *aliases: str) -> Metric:
    return Metric(name, MetricKind.SIGMOID, t, aliases)


# Identity entries are every 0..100 higher-is-better name of the shipped table. "L1 distance" is one of them
# on purpose: its only task (Video-Generation "Static T2V", SoTA 99.72) is VBench's temporal-flickering score
# (255 - mean L1 frame difference) / 255 x 100, higher is better, so no lower-is-better mapping applies.
REGISTRY: tuple[Metric, ...] = (
    _identity("Accuracy", "ACC", "Acc"),
    _identity("AMOTA", "Average Multi-Object Tracking Accuracy"),
    _identity("ANLS"),
    _identity("AP"),
    _identity("AP10"),
    _identity("AP50"),
    _identity("AP75"),
    _identity("AUC"),
    _identity("Aesthetic score"),
    _identity("BLEU-1", "BLUE_1"),  # "BLUE_1" is the table's own spelling of BLEU-1
    _identity("BLEU@4"),
    _identity("CIDEr"),
    _identity("CLAP"),
    _identity("CLIP img score"),
    _identity("CLIP score", "CLIPScore"),
    _identity("CLIP-Style"),
    _identity("CodeBLEU"),
    _identity("DICE"),
    _identity("DINO+ViCLIP+Optical flow+Motion Smooth"),
    _identity("DINOScore"),
    _identity("E-Acc"),
    _identity("EM@1"),
    _identity("F-score"),
    _identity("F1", "F1 Score"),
    _identity("Fram-Acc"),
    _identity("GPT-Score"),
    _identity("Instance mIoU"),
    _identity("L1 distance"),
    _identity("MUSIQ", "MUSIQ score"),
    _identity("Macro-Acc"),
    _identity("Micro-F1"),
    _identity("Multi-Object Successful Rate"),
    _identity("Optical Flow Score"),
    _identity("PCC"),
    _identity("PQ"),
    _identity("R@50"),
    _identity("ROUGE-1"),
    _identity("ROUGE-L"),
    _identity("Rouge-L f"),
    _identity("Single-Object Successful Rate"),
    _identity("Structure measure"),
    _identity("Style-CLAP"),
    _identity("Successful rate"),
    _identity("User preference rates"),
    _identity("mAP"),
    _identity("mAP@50"),
    _identity("mIoU"),
    _identity("m_vIoU"),
    _sigmoid("MAE", 50, "Mean Absolute Error"),
    _sigmoid("RMS", 50),
    _sigmoid("MSE", 5, "Mean Squared Error"),
    _sigmoid("RMSE", 5, "Root Mean Squared Error", "Root Mean Square Error"),
    _sigmoid("absRel", 0.1, "Absolute Relative Error"),
    _sigmoid("EPE", 1, "End-Point Error", "Endpoint Error"),
    _sigmoid("FID", 25, "Frechet Inception Distance", "Fréchet Inception Distance"),
    _sigmoid("FVD", 100, "Frechet Video Distance", "Fréchet Video Distance"),
    _sigmoid("FAD", 10, "Frechet Audio Distance", "Fréchet Audio Distance"),
    _sigmoid("SAD", 10, "Sum of Absolute Differences"),
    _sigmoid("RTE", 0.5, "Relative Translation Error"),
    _sigmoid("CD", 1, "Chamfer Distance"),
    _sigmoid("MCD", 5, "Mel Cepstral Distortion", "Mel-Cepstral Distortion"),
    Metric("PSNR", MetricKind.PSNR, None, ("Peak Signal-to-Noise Ratio",)),
    Metric("WER", MetricKind.WER, None, ("Word Error Rate",)),
    Metric("MS-SSIM", MetricKind.MS_SSIM, None, ("Multi-Scale SSIM",)),
    Metric("MOS", MetricKind.MOS, None, ("Mean Opinion Score",)),
)

_PAREN = re.compile(r"\(([^()]*)\)")


def metric_key(name: str) -> str:
    """The matching key of a name: lower case, without spaces, ``-`` and ``_``."""
    return re.sub(r"[\s\-_]+", "", name).lower()


def _build_index() -> dict[str, Metric]:
    index: dict[str, Metric] = {}
    for metric in REGISTRY:
        for spelling in (metric.name, *metric.aliases):
            key = metric_key(spelling)
            if key in index and index[key] != metric:
                raise AssertionError(f"metric key {key!r} registered twice")  # a registry bug, not user input
            index[key] = metric
    return index


_INDEX = _build_index()


@lru_cache(maxsize=4096)
def find_metric(name: str) -> Metric | None:
    """The registered metric a name denotes, or None. A parenthesised long name may stand beside or alone.
    Cached: scoring looks up the same few names for each of the 699 tasks, in both modes."""
    outer = metric_key(_PAREN.sub(" ", name))
    inner = [metric_key(m) for m in _PAREN.findall(name)]
    found = {_INDEX[k] for k in [outer, *inner] if k in _INDEX}
    if len(found) != 1:
        return None  # unknown, or a short and a long name that contradict each other
    return found.pop()


def lookup_metric(name: str) -> Metric:
    """The registered metric a name denotes; :class:`UserError` for a name the registry does not know."""
    metric = find_metric(name)
    if metric is None:
        known = ", ".join(m.name for m in REGISTRY)
        raise UserError(f"unknown metric {name!r}; General-Level knows: {known}")
    return metric


def _two_sigmoid_minus_one(z: float) -> float:
    # The release's algebraic form; both modes share it so equal inputs give bit-equal outputs.
    return 2.0 / (1.0 + math.exp(-z)) - 1.0


def _raw_map(kind: MetricKind, t: float | None, x: float) -> float:
    """The release's formula without any domain handling, in 0..1."""
    if kind is MetricKind.SIGMOID:
        assert t is not None
        return _two_sigmoid_minus_one(t / x)
    if kind is MetricKind.PSNR:
        return math.tanh(x / 20.0)
    if kind is MetricKind.WER:
        return 1.0 - x
    if kind is MetricKind.MS_SSIM:
        return (x + 1.0) / 2.0
    if kind is MetricKind.MOS:
        return (x - 1.0) / 4.0
    return x / 100.0


def normalize(metric: Metric, x: float) -> Normalized:
    """Map a raw value to 0..100 (higher is better); :class:`MetricDomainError` outside the metric's domain.

    - lower-is-better at ``x = 0``: the limit of ``2*sigmoid(T/x) - 1`` as x -> 0+, i.e. 100 (a perfect
      value); negative distances are errors.
    - WER: a value above 1 is read as a percentage (the specialist table writes WER as 5.6 for 5.6%); a value
      in [0, 1] as a fraction. Above 100% (insertions make it possible) is clamped to 0.
    - MOS must lie in [1, 5], MS-SSIM in [-1, 1], PSNR must not be negative, an identity metric in [0, 100].
    """
    if not math.isfinite(x):
        raise MetricDomainError(f"{metric.name} value {x} is not a finite number")
    kind = metric.kind
    if kind is MetricKind.IDENTITY:
        if not 0.0 <= x <= 100.0:
            raise MetricDomainError(f"{metric.name} is a 0..100 score, got {x}")
        return Normalized(x, None)
    if kind is MetricKind.SIGMOID:
        if x < 0:
            raise MetricDomainError(f"{metric.name} is a non-negative error, got {x}")
        if x == 0:
            return Normalized(100.0, f"{metric.name} of 0 is perfect: the limit of 2*sigmoid(T/x)-1 is 100")
        return Normalized(100.0 * _raw_map(kind, metric.t, x), None)
    if kind is MetricKind.PSNR:
        if x < 0:
            raise MetricDomainError(f"PSNR must not be negative, got {x}")
        return Normalized(100.0 * _raw_map(kind, None, x), None)
    if kind is MetricKind.WER:
        if x < 0:
            raise MetricDomainError(f"WER must not be negative, got {x}")
        note = None
        if x > 1.0:
            note = f"WER {x:g} > 1 read as a percentage ({x / 100:g})"
            x = x / 100.0
        if x > 1.0:
            return Normalized(0.0, f"{note}; above 100% clamped to 0")
        return Normalized(100.0 * _raw_map(kind, None, x), note)
    if kind is MetricKind.MS_SSIM:
        if not -1.0 <= x <= 1.0:
            raise MetricDomainError(f"MS-SSIM lies in [-1, 1], got {x}")
        return Normalized(100.0 * _raw_map(kind, None, x), None)
    if not 1.0 <= x <= 5.0:
        raise MetricDomainError(f"MOS lies in [1, 5], got {x}")
    return Normalized(100.0 * _raw_map(kind, None, x), None)


# The release's special names, matched against ``name.upper()`` exactly; nothing else is normalised there.
RELEASE_SPECIAL: dict[str, Metric] = {m.name.upper(): m for m in REGISTRY if m.special}


def release_is_special(raw_name: str) -> bool:
    return raw_name.upper() in RELEASE_SPECIAL


def release_normalize(raw_name: str, x: float | None) -> float | None:
    """The release's normalisation of one modality-sheet value (SoTA or model); None is a missing value.

    Names are matched as exact upper-case strings; a special metric's missing value or exact 0 becomes 0.0;
    the formulas are applied without domain checks (WER 5.6 gives -460). The release asserts a positive value.
    """
    metric = RELEASE_SPECIAL.get(raw_name.upper())
    if metric is None:
        return x
    if x is None or x == 0.0:
        return 0.0
    if x < 0:
        raise MetricDomainError(f"the release's scorer rejects {raw_name} value {x} (it asserts a value > 0)")
    return 100.0 * _raw_map(metric.kind, metric.t, x)


def release_nlp_rmse(x: float | None) -> float:
    """The release's Level-5 treatment of the model's NLP RMSE: ``sigmoid_adjust`` with T = 5, x 100.

    A missing score is infinity there, so T/x is 0 and the result is 0.0; an exact 0 divides by zero.
    """
    if x is None:
        return 0.0
    if x == 0.0:
        raise MetricDomainError("the release's scorer divides by zero on an NLP RMSE of 0; try corrected")
    try:
        return 100.0 * _two_sigmoid_minus_one(5.0 / x)
    except OverflowError:  # a tiny negative RMSE: exp overflows, the sigmoid is 0
        return -100.0
