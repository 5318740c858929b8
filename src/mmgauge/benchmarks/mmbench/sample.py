"""A built-in MMBench-style sample: drawn images with answers known by construction, and circular copies.

The default offline model reads images by OCR and answers with a small text model, so every image carries big,
clear black text on white, and each question can be answered from that text. The TSV holds all circular copies
(index i + k * 1,000,000, options rotated k places, image as a short reference to row i), so loading it goes
through the same detection and verification as the official files. The output is deterministic.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mmgauge.benchmarks.mmbench.tsv import COPY_STRIDE, OPTION_LETTERS

if TYPE_CHECKING:
    import pandas as pd

FILE_NAME = "mmbench_sample.tsv"


@dataclass(frozen=True)
class Item:
    category: str
    l2: str
    question: str
    options: tuple[str, ...]
    answer: int
    lines: tuple[str, ...]
    hint: str = ""
    swatch: str | None = None


_CP, _FPS, _FPC = "coarse_perception", "finegrained_perception (instance-level)", \
    "finegrained_perception (cross-instance)"
_AR, _RR, _LR = "attribute_reasoning", "relation_reasoning", "logic_reasoning"

ITEMS: tuple[Item, ...] = (
    Item("ocr", _FPS, "Which word is written on the sign?", ("HARBOR", "GARDEN", "WINDOW", "PLANET"), 0,
         ("HARBOR",)),
    Item("image_topic", _CP, "What is the sign about?", ("a mountain", "the beach", "a city", "a desert"), 1,
         ("WELCOME TO", "THE BEACH")),
    Item("image_scene", _CP, "Which room does the label name?", ("Bedroom", "Garage", "Kitchen", "Office"), 2,
         ("KITCHEN",)),
    Item("attribute_recognition", _FPS, "What colour is the square?", ("Red", "Green", "Yellow", "Blue"), 3,
         ("COLOUR: BLUE",), swatch="#1f4fd8"),
    Item("spatial_relationship", _FPC, "Which word is on the left side of the image?", ("DOG", "CAT"), 1,
         ("CAT        DOG",)),
    Item("structuralized_imagetext_understanding", _LR, "How many apples are listed in the table?",
         ("3", "5", "7"), 2, ("APPLES  7", "PEARS   3"), hint="The table lists fruit and their numbers."),
    Item("future_prediction", _LR, "Which number comes next in the sequence?", ("9", "10", "12", "16"), 1,
         ("2  4  6  8  ?",)),
    Item("physical_property_reasoning", _AR, "The word in the image names something that is usually:",
         ("cold", "hot"), 0, ("ICE",)),
    Item("nature_relation", _RR, "Which pair of words is shown in the image?",
         ("SUN and MOON", "CAT and DOG", "BEE and FLOWER"), 2, ("BEE", "FLOWER"),
         hint="Two words are written one above the other."),
    Item("function_reasoning", _AR, "What is the tool named in the image used for?",
         ("cutting paper", "boiling water", "writing", "digging"), 0, ("SCISSORS",)),
)


def draw(item: Item) -> bytes:
    """A PNG: the item's lines in a large font, and a colour square when the item has one."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", (640, 320), "white")
    pen = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=56)
    top = 40 if item.swatch is None else 20
    for line in item.lines:
        pen.text((40, top), line, fill="black", font=font)
        top += 80
    if item.swatch is not None:
        pen.rectangle((40, top + 10, 200, top + 130), fill=item.swatch)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def sample_frame() -> pd.DataFrame:
    """All rows of the sample: each question, followed by its copies 1, 2, ..."""
    # pandas is imported here, not with the module: the benchmark imports this module on every run, and
    # pandas alone costs a third of a second of start-up that only writing the sample needs.
    import pandas as pd

    width = max(len(item.options) for item in ITEMS)
    letters = OPTION_LETTERS[:width]
    rows: list[dict[str, str]] = []
    for number, item in enumerate(ITEMS, start=1):
        image = base64.b64encode(draw(item)).decode("ascii")
        n = len(item.options)
        for k in range(n):
            rotated = item.options[k:] + item.options[:k]
            row = {"index": str(number + k * COPY_STRIDE), "g_index": str(number), "question": item.question,
                   "hint": item.hint}
            row.update({letter: (rotated[i] if i < n else "") for i, letter in enumerate(letters)})
            row.update({"answer": letters[(item.answer - k) % n], "category": item.category,
                        "l2-category": item.l2, "split": "dev", "image": image if k == 0 else str(number)})
            rows.append(row)
    frame: pd.DataFrame = pd.DataFrame(rows)
    return frame


def write_sample(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / FILE_NAME
    sample_frame().to_csv(path, sep="\t", index=False)
    return path
