"""What the embedded backend records per answer (latency, the OCR text it gave the model, per-item failures),
with the engine replaced by a stand-in so no model is loaded."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from mmgauge.backends._embedded_engine import EngineInput, EngineOutput
from mmgauge.backends.base import Request
from mmgauge.backends.embedded import EmbeddedBackend
from mmgauge.core.types import GenerationConfig, ImageRef, Message
from mmgauge.testing.toy import tiny_png


class StandInEngine:
    """Answers 'yes' after a short pause; an item whose image came from row 2 cannot be read."""

    def __init__(self) -> None:
        self.seen: list[EngineInput] = []
        self.stage_listener: Any = None

    def load(self) -> None:
        """Nothing to load: the models of the real engine are what this stands in for."""

    def answer_batch(self, items: list[EngineInput], **_: Any) -> list[EngineOutput]:
        self.seen.extend(items)
        time.sleep(0.05)
        return [
            EngineOutput(text="", prompt_tokens=0, completion_tokens=0, ocr_text="",
                         error=f"{item.origins[0]}: image too large to decode safely")
            if ":2," in item.origins[0]
            else EngineOutput(text="yes", prompt_tokens=30, completion_tokens=1, ocr_text=f"STOP {i}")
            for i, item in enumerate(items)
        ]


def request(line: int) -> Request:
    image = ImageRef(data=tiny_png(line), origin_file="data.tsv", origin_line=line, origin_field="image")
    return Request(messages=[Message.user("Is it a stop sign?", [image])], config=GenerationConfig())


def test_latency_ocr_context_and_a_failed_image_per_request() -> None:
    backend = EmbeddedBackend()
    stand_in = StandInEngine()
    backend.engine = stand_in  # type: ignore[assignment]
    ok, failed = asyncio.run(backend.generate([request(1), request(2)]))
    assert stand_in.seen[0].origins == ["data.tsv:1, field 'image'"]
    assert ok.ok and ok.text == "yes" and ok.context == "STOP 0" and ok.latency_s >= 0.05
    assert not failed.ok and failed.context is None and failed.latency_s >= 0.05
    assert failed.error == "embedded model: data.tsv:2, field 'image': image too large to decode safely"


def test_image_origin_names_file_line_and_field_or_path() -> None:
    assert ImageRef(data=b"x", origin_file="d.tsv", origin_line=3, origin_field="image").origin() == (
        "d.tsv:3, field 'image'"
    )
    assert ImageRef(path="/data/MME/a.png").origin() == "/data/MME/a.png"
    assert ImageRef(data=b"x").origin() == "an image given as bytes"
