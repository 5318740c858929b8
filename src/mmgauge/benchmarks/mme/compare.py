"""MME, run A against run B on the same questions.

Pairing keeps the images whose two questions both runs answered (acc+ needs both). Per subtask: acc
(McNemar over questions), acc+ (McNemar over images: both questions right) and the score acc + acc+ (paired
bootstrap over images). The perception and cognition totals, the headline, are sums of subtask scores:
paired bootstrap over images within subtasks (a subtask's size is fixed by the benchmark). The score
intervals are never narrower than the MOVER floor of the acc and acc+ differences (`subtask_floor`).

acc's McNemar treats the two questions of an image as independent; they share the image, so for the
composite numbers the bootstrap resamples whole images.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mme.scoring import COGNITION, PERCEPTION, SUBTASKS
from mmgauge.parts.floors import Floor, correlation, independent, newcombe_spread
from mmgauge.parts.metric_rows import CompareSettings, MetricRow, accuracy_row, bootstrap_row
from mmgauge.parts.outcomes import FloatArray, Outcomes
from mmgauge.stats.bootstrap import sum_of_group_means
from mmgauge.stats.composite import Spread, mover_pair

BENCHMARK = "mme"
TOTALS = (("perception", PERCEPTION), ("cognition", COGNITION))


def full_images(a: Outcomes, b: Outcomes) -> tuple[Outcomes, Outcomes]:
    """Both runs restricted to the images whose two questions are in the pairing."""
    if len(a) == 0:
        return a, b
    _, codes, counts = np.unique(a.labels["image"].astype(str), return_inverse=True, return_counts=True)
    keep = counts[codes.reshape(-1)] == 2
    return a.take(keep), b.take(keep)


def _both_right(outcomes: Outcomes) -> FloatArray:
    """Per question: 1 when both questions of its image are right (acc+ as a per-question column)."""
    _, codes = np.unique(outcomes.labels["image"].astype(str), return_inverse=True)
    codes = codes.reshape(-1)
    right = np.bincount(codes, weights=outcomes.values["right"])
    both: FloatArray = (right[codes] >= 2).astype(np.float64)
    return both


def subtask_floor(
    a_cols: npt.NDArray[np.float64], b_cols: npt.NDArray[np.float64], image: npt.NDArray[np.str_]
) -> Floor:
    """Floor of one subtask's score difference (points): columns are [right, both right] per question.

    acc difference (over questions) + acc+ difference (over images), correlated through the images they
    share: rho is the correlation of the per-image differences (the correlation of their means under
    resampling of images), 1 (the widest case) when it cannot be estimated."""
    _, first, codes = np.unique(image, return_index=True, return_inverse=True)
    codes = codes.reshape(-1)
    per_image_acc = np.bincount(codes, weights=a_cols[:, 0] - b_cols[:, 0])
    per_image_plus = a_cols[first, 1] - b_cols[first, 1]
    rho = correlation(per_image_acc, per_image_plus)
    a_acc, b_acc, a_plus, b_plus = a_cols[:, 0], b_cols[:, 0], a_cols[first, 1], b_cols[first, 1]

    def floor(level: float) -> Spread:
        return mover_pair(newcombe_spread(a_acc, b_acc, level, 100.0),
                          newcombe_spread(a_plus, b_plus, level, 100.0), rho)

    return floor


def compare_mme(a: Outcomes, b: Outcomes, settings: CompareSettings) -> list[MetricRow]:
    a, b = full_images(a, b)
    if len(a) == 0:
        return []
    subtask = a.labels["subtask"].astype(str)
    image = a.labels["image"].astype(str)
    a_cols = np.c_[a.values["right"], _both_right(a)]
    b_cols = np.c_[b.values["right"], _both_right(b)]
    present = [name for name in SUBTASKS if (subtask == name).any()]
    floors = {name: subtask_floor(a_cols[subtask == name], b_cols[subtask == name],
                                      image[subtask == name]) for name in present}
    rows: list[MetricRow] = []
    for total, names in TOTALS:
        mask = np.isin(subtask, names)
        if mask.any():
            parts = [floors[name] for name in names if name in floors]
            top = 200.0 * len(parts)
            rows.append(bootstrap_row(
                BENCHMARK, "score", total, a_cols[mask], b_cols[mask],
                sum_of_group_means(subtask[mask], 100.0), "images", settings, unit="points",
                clusters=image[mask], strata=subtask[mask], headline=True,
                floor=independent(parts), bounds=(-top, top)))
    for name in present:
        mask = subtask == name
        rows.append(accuracy_row(BENCHMARK, "acc", name, a_cols[mask, 0], b_cols[mask, 0], "questions",
                                 settings))
        # One entry per image for acc+: its first question carries the image's flag.
        _, first = np.unique(image[mask], return_index=True)
        rows.append(accuracy_row(BENCHMARK, "acc+", name, a_cols[mask, 1][first], b_cols[mask, 1][first],
                                 "images", settings))
        rows.append(bootstrap_row(
            BENCHMARK, "score", name, a_cols[mask], b_cols[mask], sum_of_group_means(subtask[mask], 100.0),
            "images", settings, unit="points", clusters=image[mask], floor=floors[name],
            bounds=(-200.0, 200.0)))
    return rows


def partial_note(a: Outcomes) -> list[str]:
    """Which totals are sums over fewer subtasks than the benchmark has."""
    present = set(a.labels["subtask"].astype(str).tolist()) if len(a) else set()
    notes = []
    for total, names in TOTALS:
        have = [n for n in names if n in present]
        if have and len(have) < len(names):
            notes.append(f"MME {total} sums the {len(have)} of {len(names)} subtasks both runs answered")
    return notes


def notes(a: Outcomes, b: Outcomes) -> list[str]:
    """What a comparison of the paired `a` and `b` leaves out (the `comparison_notes` hook)."""
    full_a, _ = full_images(a, b)
    out = partial_note(full_a)
    dropped = len(a) - len(full_a)
    if dropped:
        out.append(f"MME: {dropped} paired questions left out (the other question of their image is "
                   "not answered by both runs)")
    return out
