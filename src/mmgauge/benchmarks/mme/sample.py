"""The built-in MME sample: images drawn with PIL whose answers hold by construction, in the release layout.

Every image carries large, clear text, because the default model reads text but cannot see shapes; the
facts only pixels show (colours, counts of drawn shapes, positions) are still drawn. Output is byte-identical
on every run: fixed sizes, the built-in font, no timestamps or PNG metadata.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from mmgauge.benchmarks.mme.scoring import SUBTASKS

SIZE: Final = (512, 384)
#: The five subtasks the release keeps in `images/` + `questions_answers_YN/`; the rest sit side by side.
SPLIT_SUBTASKS: Final = frozenset({"artwork", "celebrity", "landmark", "posters", "scene"})
_SUFFIX: Final = " Please answer yes or no."

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
Op = Callable[[ImageDraw.ImageDraw], None]


@dataclass(frozen=True)
class Item:
    image: str
    ops: tuple[Op, ...]
    yes: str
    no: str


@cache
def _font(size: int) -> Font:
    return ImageFont.load_default(size=size)


# Each helper returns one drawing step, so an image is declared as a flat tuple of steps.
def text(x: int, y: int, words: str, size: int = 40, fill: str = "black") -> Op:
    def op(d: ImageDraw.ImageDraw) -> None:
        d.text((x, y), words, font=_font(size), fill=fill, anchor="mm")

    return op


def caption(words: str, size: int = 36) -> Op:
    return text(SIZE[0] // 2, SIZE[1] - 40, words, size)


def ball(x: int, y: int, fill: str = "white", r: int = 40) -> Op:
    return lambda d: d.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline="black", width=3)


def box(x: int, y: int, fill: str = "white", r: int = 40) -> Op:
    return lambda d: d.rectangle((x - r, y - r, x + r, y + r), fill=fill, outline="black", width=3)


def rect(xy: tuple[int, int, int, int], fill: str) -> Op:
    return lambda d: d.rectangle(xy, fill=fill)


def triangle(x: int, top: int, bottom: int, half: int, fill: str | None, outline: str | None = None) -> Op:
    return lambda d: d.polygon([(x, top), (x - half, bottom), (x + half, bottom)], fill=fill, outline=outline)


def poster(title: str, first: str, second: str, band: str) -> tuple[Op, ...]:
    return (rect((0, 0, SIZE[0], 90), band), text(SIZE[0] // 2, 45, title, 40, "white"),
            text(SIZE[0] // 2, 160, first, 32), text(SIZE[0] // 2, 220, second, 32))


def person(x: int, name: str) -> tuple[Op, ...]:
    return (lambda d: d.ellipse((x - 30, 110, x + 30, 170), fill="tan", outline="black", width=2),
            rect((x - 40, 175, x + 40, 270), "gray"),
            lambda d: d.rectangle((x - 55, 100, x + 55, 285), outline="red", width=5),
            text(x, 315, name, 28))


def code(*lines: str) -> tuple[Op, ...]:
    frame = rect((20, 20, SIZE[0] - 20, SIZE[1] - 20), "#eeeeee")
    # Left-aligned like an editor: anchor "lm" puts each line's left edge at x = 50.
    return (frame, *(text_left(50, 70 + 60 * row, line) for row, line in enumerate(lines)))


def text_left(x: int, y: int, words: str, size: int = 36) -> Op:
    def op(d: ImageDraw.ImageDraw) -> None:
        d.text((x, y), words, font=_font(size), fill="black", anchor="lm")

    return op


def _q(question: str) -> str:
    return question + _SUFFIX


def _calc(name: str, sum_text: str, right: int, wrong: int) -> Item:
    ask = "Is the answer to the arithmetic question in the image {}?"
    return Item(name, (text(256, 192, sum_text, 64),), _q(ask.format(right)), _q(ask.format(wrong)))


def _translate(name: str, french: str, right: str, wrong: str) -> Item:
    ask = "Is it appropriate to translate the French in the image into English '{}'?"
    return Item(name, (text(256, 192, french, 56),), _q(ask.format(right)), _q(ask.format(wrong)))


def _ocr(name: str, logo: str, wrong: str) -> Item:
    ask = 'Is the word in the logo "{}"?'
    return Item(name, (text(256, 192, logo, 56),), _q(ask.format(logo.lower())), _q(ask.format(wrong)))


def _items() -> dict[str, list[Item]]:
    code_q = "The image shows a python code. Is the output of the code '{}'?"
    actor = "Is the actor inside the red bounding box named {}?"
    scene = "Is this photo taken in a place of {}?"
    return {
        "existence": [
            Item("0001.png", (box(140, 150), text(140, 220, "HOUSE"), ball(370, 150), text(370, 220, "SUN")),
                 _q("Is there a house in this image?"), _q("Is there a car in this image?")),
            Item("0002.png", (ball(140, 150), text(140, 220, "TREE"), box(370, 150), text(370, 220, "CAR")),
                 _q("Is there a car in this image?"), _q("Is there a dog in this image?")),
        ],
        "count": [
            Item("0001.png", tuple(op for i in range(3) for op in (ball(100 + 155 * i, 150),
                                                                   text(100 + 155 * i, 220, "BALL"))),
                 _q("Are there three balls in the image?"), _q("Are there five balls in the image?")),
            Item("0002.png", tuple(op for i in range(2) for op in (box(160 + 190 * i, 150),
                                                                   text(160 + 190 * i, 220, "BOX"))),
                 _q("Are there two boxes in the image?"), _q("Is there only one box in the image?")),
        ],
        "position": [
            Item("0001.png", (ball(120, 150), text(120, 220, "CAT"), ball(390, 150), text(390, 220, "DOG")),
                 _q("Is the cat on the left side of the dog?"),
                 _q("Is the cat on the right side of the dog?")),
            Item("0002.png", (text(256, 70, "BIRD", 48), text(256, 300, "FISH", 48)),
                 _q("Is the bird above the fish?"), _q("Is the bird below the fish?")),
        ],
        "color": [
            Item("0001.png", (ball(256, 150, "red", 90), caption("BALL")),
                 _q("Is there a red ball in the image?"), _q("Is there a blue ball in the image?")),
            Item("0002.png", (box(256, 150, "blue", 90), caption("BOX")),
                 _q("Is there a blue box in the image?"), _q("Is there a green box in the image?")),
        ],
        "posters": [
            Item("tt0000001.png", poster("THE LAST HARBOR", "directed by", "ANNA BERG", "navy"),
                 _q("Is this movie directed by anna berg?"), _q("Is this movie directed by tom reyes?")),
            Item("tt0000002.png", poster("NIGHT TRAIN", "a film starring", "LEO MARSH", "maroon"),
                 _q("Is this movie titled night train?"), _q("Is this movie titled morning bus?")),
        ],
        "celebrity": [
            Item("tt0000001_shot_0001_img_0.png", (*person(150, "ALEX MORGAN"), ball(370, 190, "gray", 50)),
                 _q(actor.format("Alex Morgan")), _q(actor.format("Sam Carter"))),
            Item("tt0000002_shot_0001_img_0.png", person(256, "RITA VANCE"),
                 _q(actor.format("Rita Vance")), _q(actor.format("Nora Quinn"))),
        ],
        "scene": [
            Item("beach_0001.png", (rect((0, 0, 512, 200), "deepskyblue"), rect((0, 200, 512, 384), "khaki"),
                                    caption("BEACH")),
                 _q(scene.format("beach")), _q(scene.format("forest"))),
            Item("forest_0001.png", (*(triangle(110 + 100 * i, 80, 260, 50, "forestgreen") for i in range(4)),
                                     caption("FOREST")),
                 _q(scene.format("forest")), _q(scene.format("desert"))),
        ],
        "landmark": [
            Item("0001.png", (triangle(256, 40, 280, 56, None, "black"), caption("EIFFEL TOWER")),
                 _q("Is this a photo of Eiffel Tower?"), _q("Is this a photo of Big Ben?")),
            Item("0002.png", (lambda d: d.arc((60, 60, 452, 420), 180, 360, fill="orangered", width=8),
                              caption("GOLDEN GATE BRIDGE", 32)),
                 _q("Is this a picture of Golden Gate Bridge?"), _q("Is this a picture of Tower Bridge?")),
        ],
        "artwork": [
            Item("0001.png", poster("STARRY NIGHT", "painting by", "VINCENT VAN GOGH", "midnightblue"),
                 _q("Is this artwork created by vincent van gogh?"),
                 _q("Is this artwork created by claude monet?")),
            Item("0002.png", poster("THE THINKER", "bronze sculpture", "by AUGUSTE RODIN", "sienna"),
                 _q("Does this artwork exist in the form of sculpture?"),
                 _q("Does this artwork exist in the form of painting?")),
        ],
        "OCR": [_ocr("0001.png", "HELLO WORLD", "yellow world"),
                _ocr("0002.png", "SUNRISE CAFE", "sunrise cake")],
        "commonsense_reasoning": [
            Item("0001.png", (lambda d: d.regular_polygon((256, 170, 120), 8, fill="red"),
                              text(256, 170, "STOP", 64, "white")),
                 _q("Should I stop when I see the sign in the picture?"),
                 _q("When I see the sign in the picture, may I drive on without stopping?")),
            Item("0002.png", (text(256, 140, "TODAY: -10 °C", 52), caption("SNOW")),
                 _q("Should I wear a warm coat outside today?"),
                 _q("Is today warm enough to swim outdoors?")),
        ],
        "numerical_calculation": [
            _calc("0001.png", "12 + 7 = ?", 19, 21),
            _calc("0002.png", "6 x 4 = ?", 24, 26),
            _calc("0003.png", "35 - 8 = ?", 27, 28),
        ],
        "text_translation": [
            _translate("0001.png", "le chat noir", "the black cat", "the white dog"),
            _translate("0002.png", "merci beaucoup", "thank you very much", "good night"),
        ],
        "code_reasoning": [
            Item("0001.png", code("x = 3", "y = 4", "print(x * y)"),
                 _q(code_q.format("12")), _q(code_q.format("7"))),
            Item("0002.png", code('word = "ab"', "print(word * 2)"),
                 _q(code_q.format("abab")), _q(code_q.format("ab2"))),
        ],
    }


def render(item: Item) -> bytes:
    image = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(image)
    for op in item.ops:
        op(draw)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def write_sample(directory: Path) -> Path:
    """Write the sample under `directory/mme_sample` (overwriting it file by file) and return that folder."""
    root = directory / "mme_sample"
    items = _items()
    for subtask in SUBTASKS:
        folder = root / subtask
        split = subtask in SPLIT_SUBTASKS
        image_dir = folder / "images" if split else folder
        question_dir = folder / "questions_answers_YN" if split else folder
        image_dir.mkdir(parents=True, exist_ok=True)
        question_dir.mkdir(parents=True, exist_ok=True)
        for item in items[subtask]:
            (image_dir / item.image).write_bytes(render(item))
            text = f"{item.yes}\tYes\n{item.no}\tNo\n"
            (question_dir / f"{Path(item.image).stem}.txt").write_bytes(text.encode("utf-8"))
    return root
