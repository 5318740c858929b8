"""The built-in MMStar sample: 18 synthetic questions, one per detailed axis (3 per core capability), written
by code as a VLMEvalKit TSV, so `mmgauge run --bench mmstar` works offline and exercises the real reader.

The images are drawn with PIL (coloured squares, a bar chart, a triangle, ...). Like VLMEvalKit's files, the
TSV stores an image once and names its row's index where a later question shows it again. The answers are
spread over A-D (6 A, 5 B, 3 C, 4 D), so a model always answering "A" scores 6 of 18.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from mmgauge.benchmarks.mmstar.result import CAPABILITIES

FILE_NAME: Final = "MMStar_sample.tsv"

#: (question, options A-D, answer letter, picture) per detailed axis, in `CAPABILITIES` order.
QUESTIONS: Final[tuple[tuple[str, tuple[str, str, str, str], str, str], ...]] = (
    ("What is the main topic of the image?", ("Squares", "A beach", "A forest", "A city"), "A", "squares"),
    ("Which style best describes the image?", ("Photograph", "Flat graphic", "Oil painting", "Sketch"), "B",
     "squares"),
    ("What mood do the colours convey?", ("Gloomy", "Angry", "Cheerful", "Fearful"), "C", "warm"),
    ("How many squares are in the image?", ("2", "3", "4", "5"), "B", "squares"),
    ("What shape is shown?", ("Circle", "Square", "Star", "Triangle"), "D", "triangle"),
    ("Where is the red square?", ("Top left", "Top right", "Bottom left", "Bottom right"), "A", "squares"),
    ("Is the triangle pointing up or down?", ("Up", "Down", "Left", "Right"), "A", "triangle"),
    ("Which square is larger than the others?", ("None of them", "The red one", "The blue one",
                                                 "The green one"), "A", "squares"),
    ("What is to the right of the red square?", ("The green square", "The blue square", "Nothing",
                                                 "A circle"), "B", "squares"),
    ("What comes next in the colour sequence red, green, blue?", ("Red", "Yellow", "Black", "White"), "A",
     "squares"),
    ("Which bar is the tallest?", ("The first", "The second", "The third", "The fourth"), "C", "bars"),
    ("What would make the scene warmer?", ("More blue", "Less light", "More orange", "More grey"), "C",
     "warm"),
    ("Which colour of light has the longest wavelength?", ("Blue", "Green", "Violet", "Red"), "D", "squares"),
    ("What does a battery store?", ("Light", "Chemical energy", "Sound", "Heat only"), "B", "bars"),
    ("Which is a renewable energy source?", ("Coal", "Oil", "Gas", "Sunlight"), "D", "warm"),
    ("How many sides does the shape have?", ("Three", "Four", "Five", "Six"), "A", "triangle"),
    ("If each square is worth 2, what are they worth together?", ("4", "6", "8", "10"), "B", "squares"),
    ("Which bar is the shortest?", ("The first", "The second", "The third", "The fourth"), "D", "bars"),
)


def _squares(draw: Any) -> None:
    for x, colour in ((4, "red"), (24, "green"), (44, "blue")):
        draw.rectangle([x, 4, x + 14, 18], fill=colour)


def _triangle(draw: Any) -> None:
    draw.polygon([(32, 4), (58, 58), (6, 58)], fill="purple")


def _bars(draw: Any) -> None:
    for i, height in enumerate((30, 40, 55, 12)):
        draw.rectangle([6 + 14 * i, 62 - height, 16 + 14 * i, 62], fill="navy")


def _warm(draw: Any) -> None:
    draw.rectangle([0, 0, 63, 31], fill="orange")
    draw.rectangle([0, 32, 63, 63], fill="gold")


PICTURES: Final[dict[str, Callable[[Any], None]]] = {
    "squares": _squares, "triangle": _triangle, "bars": _bars, "warm": _warm,
}


def _png(picture: str) -> str:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (64, 64), "white")
    PICTURES[picture](ImageDraw.Draw(image))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def write_sample(directory: Path) -> Path:
    """Write the sample TSV under `directory` (deterministic) and return its path."""
    import pandas as pd

    directory.mkdir(parents=True, exist_ok=True)
    labels = [(category, axis) for category, axes in CAPABILITIES.items() for axis in axes]
    first_row: dict[str, int] = {}
    rows = []
    for index, ((question, options, answer, picture), (category, axis)) in enumerate(
            zip(QUESTIONS, labels, strict=True)):
        # Later questions about an image name the row that holds it, as VLMEvalKit's TSVs do.
        image = str(first_row[picture]) if picture in first_row else _png(picture)
        first_row.setdefault(picture, index)
        rows.append({"index": index, "question": question, **dict(zip("ABCD", options, strict=True)),
                     "answer": answer, "category": category, "l2-category": axis, "image": image})
    path = directory / FILE_NAME
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return path
