"""The built-in POPE sample: three drawn "photos" with their objects written on them, in three splits.

The default offline model reads images by OCR, so each image names its objects in large black capitals
(COCO category names). Per image and split there are POPE's two kinds of question: about the objects shown
(truth yes) and about absent ones (truth no), the absent ones picked as POPE picks them: at random, among
the most frequent COCO objects (popular), or among objects that often appear with the shown ones
(adversarial). It is written in lmms-lab/POPE's parquet layout, so loading it goes through the real reader.
Deterministic: the same bytes every time.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Final

#: A folder holding one split's shard, as a hub snapshot's `data/` does. A folder, not a file: the built-in
#: sample check renames a one-file sample to the name of the user's file, and a parquet named `POPE.tsv`
#: would be read as a TSV.
FOLDER: Final = "pope_sample"
FILE_NAME: Final = "test-00000-of-00001.parquet"

#: (COCO image name, the objects on it, absent objects per split: random, popular, adversarial).
IMAGES: Final = (
    ("COCO_val2014_000000000001", ("dog", "bicycle"),
     {"random": ("giraffe", "toaster"), "popular": ("person", "car"),
      "adversarial": ("frisbee", "bench")}),
    ("COCO_val2014_000000000002", ("cup", "laptop"),
     {"random": ("zebra", "surfboard"), "popular": ("chair", "person"),
      "adversarial": ("keyboard", "mouse")}),
    ("COCO_val2014_000000000003", ("pizza", "umbrella"),
     {"random": ("train", "scissors"), "popular": ("car", "bottle"),
      "adversarial": ("dining table", "fork")}),
)
SPLITS: Final = ("adversarial", "popular", "random")  # lmms-lab/POPE's row order


def question(name: str) -> str:
    article = "an" if name[0] in "aeiou" else "a"
    return f"Is there {article} {name} in the image?"


def draw(objects: tuple[str, ...]) -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (640, 480), "white")
    pen = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=64)
    for number, name in enumerate(objects):
        pen.text((48, 80 + 160 * number), name.upper(), fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def rows() -> list[dict[str, object]]:
    """The sample's rows in lmms-lab/POPE's columns (question ids restart at 1 in each split)."""
    pictures = {source: draw(objects) for source, objects, _ in IMAGES}
    out: list[dict[str, object]] = []
    for split in SPLITS:
        number = 0
        for source, objects, absent in IMAGES:
            for name, truth in [*((o, "yes") for o in objects), *((o, "no") for o in absent[split])]:
                number += 1
                out.append({"id": str(len(out)), "question_id": str(number), "question": question(name),
                            "answer": truth, "image_source": source,
                            "image": {"bytes": pictures[source], "path": None}, "category": split})
    return out


def write_sample(directory: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = directory / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("id", pa.string()), ("question_id", pa.string()), ("question", pa.string()),
                        ("answer", pa.string()), ("image_source", pa.string()), ("image", image),
                        ("category", pa.string())])
    pq.write_table(pa.Table.from_pylist(rows(), schema=schema), folder / FILE_NAME)
    return folder
