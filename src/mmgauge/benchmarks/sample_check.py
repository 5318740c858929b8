"""Is data given with `--data` the built-in sample? `mmgauge sample` writes it for `run --data`, and the
README recommends that route, so its scores must carry the same label as a default run's.

Recognised by content: the benchmark writes its sample again (deterministic, under a second) into a
scratch folder and the two dataset fingerprints are compared. Fingerprints cover the data's content and
file names, not where it lies, so a moved sample is still recognised (a one-file sample under any name);
an edited one is not (it is no longer the built-in sample, and its provenance is the user's to state).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Final

from mmgauge.benchmarks.base import AnyBenchmark, Dataset
from mmgauge.core.errors import UserError

#: Datasets larger than this are never a built-in sample (those hold 18 to 58 samples; a test keeps each
#: one under it): skip the work, half a second (writing the sample imports pandas and draws its images) that
#: a run of a few hundred requests would otherwise spend before its first one.
LARGEST_SAMPLE: Final = 100


def is_builtin_sample(bench: AnyBenchmark, dataset: Dataset) -> bool:
    """True when `dataset` has the fingerprint of `bench`'s built-in sample (with the same options)."""
    if len(dataset.samples) > LARGEST_SAMPLE or not bench.has_sample_data():
        return False
    given = Path(dataset.source)
    with tempfile.TemporaryDirectory(prefix="mmgauge-sample-check-") as scratch:
        try:
            written = bench.sample_data(Path(scratch) / "sample")
            if written.is_file() and given.is_file() and written.name != given.name:
                # A one-file sample's fingerprint covers its file name; `sample --out` lets the user pick one.
                written = written.rename(written.with_name(given.name))
            return bench.load(written).fingerprint == dataset.fingerprint
        except UserError:  # unreadable under the given name (a parquet split's, say): not the sample
            return False
