"""A tiny yes/no benchmark for tests and overhead benchmarks: N samples over a few generated images.

The question text carries the sample id, so a test server can tell requests apart. Not registered by
default; tests and bench scripts add it to the registry themselves.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel

from mmgauge.benchmarks.base import Benchmark, BenchmarkOptions, Dataset
from mmgauge.core.errors import UserError
from mmgauge.core.types import (
    DatasetEntry,
    Extraction,
    GenerationConfig,
    ImageRef,
    Message,
    ModelSpec,
    Sample,
    SampleRecord,
)
from mmgauge.store.manifest import ManifestStore


def toy_manifest(out: Path, spec: ModelSpec, model_fingerprint: str, dataset: Dataset,
                 config: GenerationConfig) -> ManifestStore:
    """A run manifest for a toy run driven from Python (tests, bench scripts) rather than the CLI."""
    entry = DatasetEntry(benchmark=dataset.benchmark, data=dataset.source, fingerprint=dataset.fingerprint,
                         samples=len(dataset.samples))
    return ManifestStore.open(out, model=spec, model_fingerprint=model_fingerprint, generation=config,
                              judge=None, datasets=[entry], seeds={}, command=[])


class ToyResult(BaseModel):
    scored: int
    correct: int
    failed: int
    accuracy: float


def tiny_png(seed: int) -> bytes:
    from PIL import Image

    image = Image.new("RGB", (8, 8), ((seed * 53) % 256, (seed * 97) % 256, (seed * 31) % 256))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def write_toy_data(directory: Path, samples: int, images: int = 4) -> Path:
    """A JSONL file of samples; answers alternate yes/no."""
    directory.mkdir(parents=True, exist_ok=True)
    for i in range(images):
        (directory / f"img{i}.png").write_bytes(tiny_png(i))
    path = directory / "toy.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(samples):
            row = {
                "id": f"q{i:06d}",
                "image": f"img{i % images}.png",
                "answer": "yes" if i % 2 == 0 else "no",
            }
            handle.write(json.dumps(row) + "\n")
    return path


class ToyBenchmark(Benchmark[BenchmarkOptions, ToyResult]):
    name: ClassVar[str] = "toy"
    description: ClassVar[str] = "toy yes/no benchmark for tests"
    result_type: ClassVar[type[BaseModel]] = ToyResult
    default_size: ClassVar[int] = 20

    def load(self, data: Path) -> Dataset:
        if not data.is_file():
            raise UserError("toy data not found", file=str(data))
        raw = data.read_bytes()
        samples = []
        #: Each image's path, made once per distinct image (the bench's 10,000 questions share 2,500 images).
        paths: dict[str, str] = {}
        for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise UserError("not JSON", file=str(data), line=number) from None
            samples.append(
                Sample(
                    id=row["id"],
                    benchmark=self.name,
                    question=f"[{row['id']}] Is this a test image? Please answer yes or no.",
                    answer=row["answer"],
                    images=[ImageRef(path=paths.get(row["image"]) or paths.setdefault(
                        row["image"], str(data.parent / row["image"])))],
                    metadata={"image": row["image"]},
                )
            )
        return Dataset(
            benchmark=self.name,
            source=str(data),
            fingerprint=hashlib.sha256(raw).hexdigest(),
            samples=samples,
        )

    def sample_data(self, directory: Path) -> Path:
        return write_toy_data(directory, self.default_size)

    def build_messages(self, sample: Sample, round: int = 0) -> list[Message]:
        return [Message.user(sample.question, sample.images)]

    def extract(self, sample: Sample, text: str, round: int = 0) -> Extraction:
        word = text.strip().lower()
        if word in ("yes", "no"):
            return Extraction(answer=word, method="exact")
        return Extraction(answer=None, method="other")

    def score(self, records: Sequence[SampleRecord]) -> ToyResult:
        ok = [r for r in records if r.response.ok]
        correct = sum(1 for r in ok if r.correct)
        return ToyResult(
            scored=len(ok),
            correct=correct,
            failed=len(records) - len(ok),
            accuracy=correct / len(ok) if ok else 0.0,
        )

    def summary(self, result: ToyResult) -> list[tuple[str, str]]:
        return [("accuracy", f"{100 * result.accuracy:.1f}%")]
