"""MME's per-item outcomes (what two runs are paired on): an answers file's items get the run's sample ids."""

from __future__ import annotations

from mmgauge.benchmarks.mme.outcomes import from_items
from mmgauge.benchmarks.mme.scoring import MMEItem


def test_mme_file_items_get_the_run_sample_ids() -> None:
    items = [MMEItem("count", "1.jpg", "yes", "yes"), MMEItem("count", "1.jpg", "no", None, failed=True),
             MMEItem("OCR", "2.jpg", "yes", "no"), MMEItem("OCR", "2.jpg", "no", "no")]
    outcomes = from_items(items)
    assert outcomes.keys.tolist() == ["count/1.jpg/q0", "OCR/2.jpg/q0", "OCR/2.jpg/q1"]
    assert outcomes.values["right"].tolist() == [1.0, 0.0, 1.0]
    assert outcomes.labels["image"].tolist() == ["count/1.jpg", "OCR/2.jpg", "OCR/2.jpg"]
