"""POPE fixtures in the layouts they are published in, with designed model answers.

- `lmms_lab_parquet`: lmms-lab/POPE's default config as the Hugging Face dataset has it (`id`,
  `question_id` restarting per split, `question`, `answer`, `image_source`, `image` {bytes, path},
  `category`; one split `test`, rows in adversarial, popular, random order), built with pyarrow.
- `vlmevalkit_tsv`: VLMEvalKit's POPE.tsv written with pandas as VLMEvalKit writes it: a question shared by
  splits is one row with category "adversarial,popular,random"; an image's base64 text is on its first row,
  later rows hold that row's index.

`ANSWERS` gives, per split, the model's text for each question in row order; its comments say how POPE's
evaluate.py reads each one.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Final

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

IMAGES: Final = {"COCO_val2014_000000310196": (200, 40, 40), "COCO_val2014_000000210789": (40, 40, 200)}
#: Per split: (image, object, truth, the model's text). Two images x (2 present + 2 absent objects).
ROWS: Final[dict[str, list[tuple[str, str, str, str]]]] = {
    "adversarial": [
        ("COCO_val2014_000000310196", "dog", "yes", "Yes"),                      # yes: TP
        ("COCO_val2014_000000310196", "bicycle", "yes", "Yes, there is a bicycle."),  # yes: TP
        ("COCO_val2014_000000310196", "frisbee", "no", "Yes, there is a frisbee."),   # yes: FP
        ("COCO_val2014_000000310196", "bench", "no", "Yes"),                      # yes: FP
        ("COCO_val2014_000000210789", "cup", "yes", "yes"),                       # yes: TP
        ("COCO_val2014_000000210789", "laptop", "yes", "No"),                     # no: FN
        ("COCO_val2014_000000210789", "keyboard", "no", "Not at all."),           # "Not" is no rule word: FP
        ("COCO_val2014_000000210789", "mouse", "no", "There's no mouse, no."),    # no: TN
    ],
    "popular": [
        ("COCO_val2014_000000310196", "dog", "yes", "Yes. There is no cat"),      # first sentence "Yes": TP
        ("COCO_val2014_000000310196", "bicycle", "yes", "No\nThe image shows a bicycle"),  # "No\nThe": TP
        ("COCO_val2014_000000310196", "person", "no", "no"),                      # no: TN
        ("COCO_val2014_000000310196", "car", "no", "Yes, a car is there."),       # yes: FP
        ("COCO_val2014_000000210789", "cup", "yes", "Oui, il y a une tasse ☕."),  # no rule word: TP
        ("COCO_val2014_000000210789", "laptop", "yes", "No, I can't see one."),   # no: FN
        ("COCO_val2014_000000210789", "chair", "no", "There is no chair in the image."),  # no: TN
        ("COCO_val2014_000000210789", "person", "no", "No"),                      # no: TN
    ],
    "random": [
        ("COCO_val2014_000000310196", "dog", "yes", "Yes, there is a dog in the image."),  # TP
        ("COCO_val2014_000000310196", "bicycle", "yes", "NO"),                   # "NO" is no rule word: TP
        ("COCO_val2014_000000310196", "giraffe", "no", "No, there is no giraffe."),  # TN
        ("COCO_val2014_000000310196", "toaster", "no", "I don't think so."),     # FP
        ("COCO_val2014_000000210789", "cup", "yes", "Yes"),                       # TP
        ("COCO_val2014_000000210789", "laptop", "yes", "There is not a laptop. Yes."),  # "not": FN
        ("COCO_val2014_000000210789", "zebra", "no", "No."),                      # TN
        ("COCO_val2014_000000210789", "zebra crossing", "no", "Non, il n'y a pas de zèbre."),  # FP
    ],
}


def png(colour: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (32, 24), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def question(name: str) -> str:
    return f"Is there {'an' if name[0] in 'aeiou' else 'a'} {name} in the image?"


def parquet_rows() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for split, entries in ROWS.items():
        for number, (source, name, truth, _) in enumerate(entries, start=1):
            rows.append({"id": str(len(rows)), "question_id": str(number), "question": question(name),
                         "answer": truth, "image_source": source,
                         "image": {"bytes": png(IMAGES[source]), "path": None}, "category": split})
    return rows


@pytest.fixture
def lmms_lab_parquet(tmp_path: Path) -> Path:
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("id", pa.string()), ("question_id", pa.string()), ("question", pa.string()),
                        ("answer", pa.string()), ("image_source", pa.string()), ("image", image),
                        ("category", pa.string())])
    folder = tmp_path / "lmms-lab-POPE" / "data"
    folder.mkdir(parents=True)
    path = folder / "test-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(parquet_rows(), schema=schema), path)
    return path


@pytest.fixture
def replay_for_parquet(tmp_path: Path) -> Path:
    """Predictions keyed by mmgauge's sample ids for the parquet (`<split>/<question_id>`)."""
    rows = [{"index": f"{split}/{n}", "prediction": text}
            for split, entries in ROWS.items() for n, (*_, text) in enumerate(entries, start=1)]
    path = tmp_path / "answers.tsv"
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return path


def tsv_rows() -> list[dict[str, str]]:
    """VLMEvalKit's merged rows: one per distinct (image, question), its splits joined by commas, with the
    model's text (the same question gets the same text in every split it is in: it is asked once)."""
    merged: dict[tuple[str, str], dict[str, str]] = {}
    for split in sorted(ROWS):
        for source, name, truth, text in ROWS[split]:
            row = merged.setdefault((source, name), {"question": question(name),
                                                     "answer": truth.capitalize(), "category": "",
                                                     "image_source": source, "prediction": text})
            row["category"] = ",".join(filter(None, [row["category"], split]))
    first: dict[str, int] = {}
    out = []
    for index, ((source, _), row) in enumerate(merged.items()):
        image = str(first[source]) if source in first else base64.b64encode(png(IMAGES[source])).decode()
        first.setdefault(source, index)
        out.append({"index": str(index), "image": image, **row})
    return out


@pytest.fixture
def vlmevalkit_tsv(tmp_path: Path) -> Path:
    frame = pd.DataFrame(tsv_rows()).drop(columns=["prediction"])
    path = tmp_path / "POPE.tsv"
    frame[["index", "image", "question", "answer", "category", "image_source"]].to_csv(path, sep="\t",
                                                                                    index=False)
    return path


@pytest.fixture
def vlmevalkit_predictions(tmp_path: Path) -> Path:
    """`<model>_POPE.xlsx` as VLMEvalKit's inference writes it: the TSV's columns but the image, plus
    `prediction`."""
    frame = pd.DataFrame(tsv_rows()).drop(columns=["image"])
    path = tmp_path / "Model_POPE.xlsx"
    frame.to_excel(path, index=False)
    return path
