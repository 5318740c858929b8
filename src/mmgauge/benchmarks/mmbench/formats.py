"""MMBench-form tables in the other toolkits' files, read into text columns like a TSV.

- The lmms-lab Hugging Face datasets (`lmms-lab/MMBench` configs en/cn/cc, `lmms-lab/MMBench_EN`, ...), as
  parquet shards or the `datasets` arrow cache: columns `index` (int), `question`, `hint`, `A`..`D`, `answer`,
  `category`, `L2-category`, `source`, `comment`, `split`, and `image` as a struct `{bytes, path}`. The files
  hold the circular copies (index i + k * 1,000,000) as the TSVs do. A missing value is null or the text "nan"
  (pandas' NaN written as text; lmms-eval's `create_options_prompt` skips it and its prompt leaves out a "nan"
  hint), so both are read as an empty cell in the option and hint columns.
- lmms-eval's per-sample log (`--log_samples`: `<date>_samples_<task>.jsonl`), one JSON object per document:
  `doc_id`, `target`, `filtered_resps` (and `resps`), hashes, and the task's metric entries. For MMBench those
  are `gpt_eval_score` and `submission`, each a dict with `index, question, answer, prediction, hint, source,
  split, category, L2-category, A..E` (lmms-eval `tasks/mmbench/en_utils.py`, `mmbench_process_results`). The
  `gpt_eval_score` dict (else `submission`, else any dict holding `index` and `prediction`) is the row. Plain
  JSON lines holding those columns at the top level are read as they are.

Cells are text, "" where empty; JSON null and NaN become "" and numbers their shortest text (12, not 12.0).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from mmgauge.core.errors import UserError
from mmgauge.core.jsonlines import read_json_objects
from mmgauge.datasources.tables import image_bytes, read_arrow, table_files

ObjArray = npt.NDArray[np.object_]
#: Columns where the lmms-lab files write a missing value as the text "nan".
_NAN_TEXT_COLUMNS: Final = frozenset("ABCDEFGHI") | {"hint"}
#: The metric entries of lmms-eval's MMBench log lines that hold the row, in order of preference.
_LMMS_EVAL_ENTRIES: Final = ("gpt_eval_score", "submission")


def cell_text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, bytes | bytearray):
        return ""
    return str(value)


def _array(values: list[Any]) -> ObjArray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


def read_hf_table(path: Path, *, images: bool) -> tuple[dict[str, ObjArray], ObjArray | None]:
    """Text columns (file order) and, with `images`, each row's image bytes (None where there are none)."""
    table = read_arrow(table_files(path))
    columns: dict[str, ObjArray] = {}
    image_data: ObjArray | None = None
    for name in table.column_names:
        values = table.column(name).to_pylist()
        if name == "image":
            if images:
                image_data = _array([image_bytes(value) for value in values])
            continue
        texts = [cell_text(value) for value in values]
        if name in _NAN_TEXT_COLUMNS:
            texts = ["" if text == "nan" else text for text in texts]
        columns[name] = _array(texts)
    return columns, image_data



def read_jsonl(path: Path) -> dict[str, ObjArray]:
    """Rows of an lmms-eval sample log (or plain JSON lines) as text columns, in first-seen column order."""
    rows: list[dict[str, Any]] = [_row_of(record) for _, record in read_json_objects(path)]
    if not rows:
        raise UserError("the file has no rows", file=str(path))
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return {name: _array([cell_text(row.get(name)) for row in rows]) for name in names}


def _row_of(record: dict[str, Any]) -> dict[str, Any]:
    for key in _LMMS_EVAL_ENTRIES:
        entry = record.get(key)
        if isinstance(entry, dict) and "index" in entry:
            return entry
    for entry in record.values():
        if isinstance(entry, dict) and "index" in entry and "prediction" in entry:
            return entry
    return record
