"""The submission file for test splits (no answer key): the original columns plus `prediction`, as xlsx.

This is the form the MMBench evaluation server took (it was retired on 2026-03-31 and the test answers
released, open-compass/MMBench issue 61) and the form VLMEvalKit's predictions files have, so `mmgauge score
mmbench` and VLMEvalKit read it once it has the answer column. The `image` column is left out: base64 images
do not fit in a spreadsheet cell (32,767 characters at most) and rows are matched by `index`. Characters that
xlsx cannot hold (control characters other than tab and newlines) are removed from the predictions. Text cells
are stored as text, so an answer such as `=HYPERLINK(...)` never runs as a formula, with its value unchanged
(`mmgauge.core.formulas`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from mmgauge.benchmarks.mmbench.tsv import Table
from mmgauge.core.formulas import text_cells_as_text

_NOT_IN_XLSX = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


class Submission(BaseModel):
    path: str
    rows: int
    #: Indices with no prediction (the request failed or never ran); written with an empty prediction.
    missing: list[int]


def write_submission(table: Table, predictions: Mapping[int, str], path: Path) -> Submission:
    """Write every row of `table` (circular copies included) with its prediction, in the table's order."""
    import pandas as pd

    frame = pd.DataFrame({name: values for name, values in table.columns.items() if name != "image"})
    frame["index"] = table.index
    missing = [index for index in table.index.tolist() if index not in predictions]
    frame["prediction"] = [_NOT_IN_XLSX.sub("", predictions.get(index, "")) for index in table.index.tolist()]
    path.parent.mkdir(parents=True, exist_ok=True)
    with pd.ExcelWriter(path, engine="openpyxl") as writer:
        frame.to_excel(writer, index=False, sheet_name="Sheet1")
        text_cells_as_text(writer.sheets["Sheet1"])
    return Submission(path=str(path), rows=len(frame), missing=missing)
