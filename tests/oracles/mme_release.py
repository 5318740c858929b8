"""Generated MME releases and a model with planted accuracies, for tests of comparisons and reports.

`write_release` writes an MME release folder whose questions name their subtask and whose truth is in
their wording; `OracleBackend` knows each question's truth and answers it right with a chance set per
subtask, from a seeded generator keyed by the question's text: two runs with the same seed and chances
answer alike, a planted difference sits exactly where its chances differ.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from mmgauge.backends.base import Backend, BackendSettings, Request
from mmgauge.core.types import ModelResponse, ModelSpec
from mmgauge.testing.toy import tiny_png

SUBTASKS = ("existence", "count", "color", "OCR", "code_reasoning")


def write_release(root: Path, images: int, subtasks: Sequence[str] = SUBTASKS, variant: str = "") -> Path:
    """An MME release folder: `images` images per subtask, a yes and a no question each."""
    for subtask in subtasks:
        folder = root / subtask
        folder.mkdir(parents=True, exist_ok=True)
        for number in range(images):
            stem = f"{variant}{number:04d}"
            (folder / f"{stem}.png").write_bytes(tiny_png(number))
            (folder / f"{stem}.txt").write_text(
                f"Is {subtask} item {number}{variant} the first kind? Please answer yes or no.\tYes\n"
                f"Is {subtask} item {number}{variant} the second kind? Please answer yes or no.\tNo\n")
    return root


class OracleBackend(Backend):
    """Answers MME questions of `write_release` right with probability `chance[subtask]` (default `base`)."""

    concurrency = 8
    batch_size = 16

    def __init__(self, chance: Mapping[str, float], base: float = 0.75, seed: int = 0) -> None:
        self.chance = dict(chance)
        self.base = base
        self.seed = seed

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> OracleBackend:
        return cls({})

    def fingerprint(self) -> str:
        return f"oracle:{sorted(self.chance.items())}:{self.base}:{self.seed}"

    def _answer(self, text: str) -> str:
        words = text.split()
        subtask = words[1]
        truth = "yes" if "first kind" in text else "no"
        right = random.Random(f"{self.seed}:{text}").random() < self.chance.get(subtask, self.base)
        return truth if right else ("no" if truth == "yes" else "yes")

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        return [ModelResponse(text=self._answer(request.messages[-1].text())) for request in batch]


def oracle_run(out: Path, data: Path, chance: Mapping[str, float] | None = None, *, base: float = 0.75,
               seed: int = 0) -> Path:
    """A run folder of `OracleBackend` on the release `data` (through `mmgauge.evaluate`, no cache)."""
    import mmgauge

    mmgauge.evaluate(OracleBackend(chance or {}, base, seed), benchmarks=["mme"], data=str(data), out=out,
                     cache=False)
    return out
