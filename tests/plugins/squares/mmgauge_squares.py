"""An mmgauge plug-in in one module: POPE-style yes/no questions about coloured squares, and a backend that
answers "yes" when the question names a colour it was told about. Registered through entry points
(pyproject.toml)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.benchmarks.yesno import YesNoBenchmark
from mmgauge.core.types import ModelResponse, ModelSpec

COLOURS = {"red": (220, 30, 30), "green": (30, 180, 60), "blue": (40, 60, 220)}


class SquaresBenchmark(YesNoBenchmark):
    name = "squares"
    description = "POPE-style: is there a <colour> square in the image? (adversarial, random, popular)"
    suffix = " Please answer yes or no."

    def sample_data(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        rows = []
        for i, (shown, colour) in enumerate((c, q) for c in COLOURS for q in COLOURS):
            Image.new("RGB", (16, 16), COLOURS[shown]).save(directory / f"{shown}.png")
            rows.append({"id": f"q{i}", "image": f"{shown}.png", "question": f"Is there a {colour} square?",
                         "answer": "yes" if shown == colour else "no",
                         "category": ("random", "popular", "adversarial")[i % 3]})
        path = directory / "squares.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        return path


class ParrotBackend(Backend):
    """answers yes when the question names the colour it was given (parrot:COLOUR)"""

    def __init__(self, colour: str) -> None:
        self.colour = colour

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> ParrotBackend:
        return cls(spec.model or "red")

    def fingerprint(self) -> str:
        return f"parrot:{self.colour}"

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        texts = [request.messages[-1].text() for request in batch]
        return [ModelResponse(text="Yes." if self.colour in text else "No.") for text in texts]
