"""MME as lmms-eval holds it: the `lmms-lab/MME` Hugging Face dataset (parquet shards, or the arrow cache).

Columns: `question_id` (`<subtask>/<image file>`, shared by the two questions of an image), `image` (a struct
`{bytes, path}`), `question`, `answer` (Yes/No) and `category` (the subtask). The image file name is the last
part of `question_id`, so sample ids are those of the release folder (`<subtask>/<image>/q<n>`, n the
question's place among its image's two rows). Rows are named by their number in the split, from 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from mmgauge.benchmarks.mme.release import MMEQuestion, Row, group_pairs, parse_truth
from mmgauge.core.errors import UserError
from mmgauge.core.types import ImagePool
from mmgauge.datasources.tables import column_names, image_bytes, read_arrow, table_files

COLUMNS: Final = ("question_id", "image", "question", "answer", "category")



def load_hf_table(path: Path) -> list[MMEQuestion]:
    files = table_files(path)
    file = str(files[0] if len(files) == 1 else path)
    present = column_names(files)
    missing = [column for column in COLUMNS if column not in present]
    if missing:
        raise UserError(f"missing column(s) {', '.join(missing)} of the lmms-lab/MME layout "
                        f"(has: {', '.join(present)})", file=file)
    table = read_arrow(files, list(COLUMNS))
    texts = {name: table.column(name).to_pylist() for name in COLUMNS if name != "image"}
    images = table.column("image").to_pylist()
    rows: list[Row] = []
    keys: list[str] = []
    for number in range(table.num_rows):
        cells = {name: None if value[number] is None else str(value[number]) for name, value in texts.items()}
        question_id = (cells["question_id"] or "").strip()
        if not question_id:
            raise UserError("empty question_id", file=file, line=number + 1, field="question_id")
        rows.append(Row(number + 1, cells))
        keys.append(question_id.replace("\\", "/").rsplit("/", 1)[-1])
    pool = ImagePool(file)
    orders: dict[str, int] = {}
    questions: list[MMEQuestion] = []
    for subtask, key, members in group_pairs(rows, keys, file):
        order = orders[subtask] = orders.get(subtask, -1) + 1
        for index, row in enumerate(members):
            data = image_bytes(images[row.line - 1])
            if data is None:
                raise UserError("the row has no image bytes", file=file, line=row.line, field="image")
            truth = parse_truth(row.cells.get("answer") or "", file, row.line)
            ref = pool.embedded(data, row.line)
            text = row.cells.get("question") or ""
            questions.append(MMEQuestion(subtask, key, index, text, truth, order, ref))
    return questions
