"""MMStar fixtures in the published layouts, and what VLMEvalKit's evaluation gives for them.

- `tsv`: VLMEvalKit's MMStar.tsv layout (index, question, A-D, answer, category, l2-category, image as base64;
  a later question about an image names the row holding it), written with pandas as VLMEvalKit's files are.
- `parquet`: the Hugging Face `Lin-Chen/MMStar` layout (index, question with inline options, image as the
  datasets library's {bytes, path} struct, answer, category, l2_category, meta_info), written with pyarrow.
- `predictions`: a VLMEvalKit predictions sheet `<model>_MMStar.xlsx` (the dataset columns without the image,
  plus prediction), written with pandas.

`vlmevalkit_letter` is an independent reading of VLMEvalKit's exact matching (vlmeval/utils/matching_util.py
`can_infer`, after `extract_answer_from_item` strips the prediction; "Z" when nothing is read, as its
`exact_matching` policy gives): the expected numbers are derived from it, not from mmgauge's matcher.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest


@dataclass(frozen=True)
class Item:
    question: str
    options: tuple[str, str, str, str]
    answer: str
    category: str
    axis: str
    prediction: str
    picture: str


# Two questions per core capability; the predictions cover VLMEvalKit's cases: a bare letter, "(B)",
# "The answer is C.", two letters (unread), a wrong letter, a letter after a colon, an option's text
# (non-ASCII), a French sentence ending in a letter, an answer naming no option (unread), the failure marker.
ITEMS = (
    Item("What is the main topic of the image?", ("Geometry", "Cooking", "Sports", "Music"), "A",
         "coarse perception", "image scene and topic", "A", "red"),
    Item("What emotion does the image convey?", ("Joy", "Calm", "Anger", "Fear"), "B",
         "coarse perception", "image emotion", "(B)", "red"),
    Item("How many circles are there?", ("1", "2", "3", "4"), "C",
         "fine-grained perception", "object counting", "The answer is C.", "green"),
    Item("Where is the square?", ("Left", "Right", "Top", "Bottom"), "B",
         "fine-grained perception", "localization", "A or B", "green"),
    Item("What is the colour of the car?", ("Red", "Blue", "Green", "White"), "C",
         "instance reasoning", "single-instance reasoning", "D", "blue"),
    Item("Which object is nearer the camera?", ("The cup", "The bowl", "The spoon", "The plate"), "B",
         "instance reasoning", "cross-instance relation reasoning", "Answer: B", "blue"),
    Item("What comes next in the sequence 2, 4, 8?", ("10", "12", "14", "16"), "D",
         "logical reasoning", "code & sequence reasoning", "**C**", "grey"),
    Item("Quelle température indique le thermomètre ?", ("5 °C", "12 °C", "20 °C", "−3 °C"), "B",
         "logical reasoning", "common reasoning", "12 °C", "grey"),
    Item("Which gas do plants take in — O₂ or CO₂?", ("N₂", "H₂", "O₂", "CO₂"), "D",
         "science & technology", "biology & chemistry & physics", "Je pense que c'est la réponse D", "white"),
    Item("Which state of matter is shown?", ("Solid", "Liquid", "Gas", "Plasma"), "A",
         "science & technology", "biology & chemistry & physics", "None of these", "white"),
    Item("What is the area of the square (side 3 cm)?", ("9 cm²", "6 cm²", "12 cm²", "3 cm²"), "A",
         "math", "geometry", "C", "black"),
    Item("Which bar is the tallest?", ("First", "Second", "Third", "Fourth"), "B",
         "math", "statistical reasoning", "Failed to obtain answer via API", "black"),
)
#: The letters VLMEvalKit's exact matching reads in the predictions above ("Z": nothing read).
VLMEVALKIT_READS = ("A", "B", "C", "Z", "D", "B", "C", "B", "D", "Z", "C", "Z")
SELECT = "Please select the correct answer from the options above. \n"

_REFUSALS = ("Sorry, I can't help with images of people yet.", "I can't process this file.",
             "I'm sorry, but without the image provided", "Cannot determine the answer")


def vlmevalkit_letter(prediction: str, options: dict[str, str]) -> str:
    """VLMEvalKit's exact matching, written independently from its description (see the module docstring)."""
    text = prediction.strip()
    if "Failed to obtain answer via API" not in text:
        if any(refusal in text for refusal in _REFUSALS):
            return "Z"
        words = "".join(" " if ch in ".()[],:;!*#{}" else ch for ch in text).split()
        named = [letter for letter in options if letter in words]
        if len(named) == 1 and words.index(named[0]) > len(words) - 5:
            return named[0]
        if not named and "Z" in words:
            return "Z"
    if len(text) <= 2 * sum(len(option) for option in options.values()):
        inside = [letter for letter, option in options.items() if option.lower() in text.lower()]
        if len(inside) == 1:
            return inside[0]
    return "Z"


def options_of(item: Item) -> dict[str, str]:
    return dict(zip("ABCD", item.options, strict=True))


def png(colour: str) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def tsv_rows() -> list[dict[str, object]]:
    first: dict[str, int] = {}
    rows: list[dict[str, object]] = []
    for index, item in enumerate(ITEMS):
        image = str(first[item.picture]) if item.picture in first else base64.b64encode(
            png(item.picture)).decode("ascii")
        first.setdefault(item.picture, index)
        rows.append({"index": index, "question": item.question, **options_of(item), "answer": item.answer,
                     "category": item.category, "l2-category": item.axis, "image": image})
    return rows


def inline(item: Item) -> str:
    return f"{item.question}\nOptions: " + ", ".join(f"{k}: {v}" for k, v in options_of(item).items())


@pytest.fixture
def tsv(tmp_path: Path) -> Path:
    path = tmp_path / "MMStar.tsv"
    pd.DataFrame(tsv_rows()).to_csv(path, sep="\t", index=False)
    return path


@pytest.fixture
def parquet(tmp_path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    meta = pa.struct([("source", pa.string()), ("split", pa.string()), ("image_path", pa.string())])
    schema = pa.schema([("index", pa.int64()), ("question", pa.string()), ("image", image),
                        ("answer", pa.string()), ("category", pa.string()), ("l2_category", pa.string()),
                        ("meta_info", meta)])
    columns = {
        "index": list(range(len(ITEMS))), "question": [inline(item) for item in ITEMS],
        "image": [{"bytes": png(item.picture), "path": None} for item in ITEMS],
        "answer": [item.answer for item in ITEMS], "category": [item.category for item in ITEMS],
        "l2_category": [item.axis for item in ITEMS],
        "meta_info": [{"source": "MMBench", "split": "val", "image_path": f"images/{i}.jpg"}
                      for i in range(len(ITEMS))],
    }
    path = tmp_path / "mmstar.parquet"
    pq.write_table(pa.table(columns, schema=schema), path)
    return path


@pytest.fixture
def predictions(tmp_path: Path) -> Path:
    rows = [{key: value for key, value in row.items() if key != "image"} for row in tsv_rows()]
    for row, item in zip(rows, ITEMS, strict=True):
        row["prediction"] = item.prediction
    path = tmp_path / "GPT4o_MMStar.xlsx"
    pd.DataFrame(rows).to_excel(path, index=False)
    return path


@dataclass(frozen=True)
class Expected:
    correct: int
    questions: int
    capability: dict[str, tuple[int, int]]
    axis: dict[str, tuple[int, int]]
    unread: int


def expected(reads: tuple[str, ...] = VLMEVALKIT_READS) -> Expected:
    """What VLMEvalKit's report_acc gives: hits overall, per category and per l2-category."""
    capability: dict[str, tuple[int, int]] = {}
    axis: dict[str, tuple[int, int]] = {}
    for item, read in zip(ITEMS, reads, strict=True):
        hit = int(read == item.answer)
        for table, label in ((capability, item.category), (axis, item.axis)):
            right, total = table.get(label, (0, 0))
            table[label] = (right + hit, total + 1)
    hits = sum(read == item.answer for item, read in zip(ITEMS, reads, strict=True))
    return Expected(hits, len(ITEMS), capability, axis, sum(read == "Z" for read in reads))


def prompt_of(item: Item) -> str:
    """VLMEvalKit's ImageMCQDataset.build_prompt text for an MMStar row (no hint)."""
    lines = "".join(f"{k}. {v}\n" for k, v in options_of(item).items())
    return f"Question: {item.question}\nOptions:\n{lines}{SELECT}"


class Case:
    """The fixture's questions and what VLMEvalKit makes of them, for the tests (a fixture, since test modules
    import nothing from each other)."""

    items = ITEMS
    reads = VLMEVALKIT_READS
    letter = staticmethod(vlmevalkit_letter)
    expected = staticmethod(expected)
    prompt = staticmethod(prompt_of)
    options = staticmethod(options_of)
    inline = staticmethod(inline)


@pytest.fixture
def case() -> type[Case]:
    return Case
