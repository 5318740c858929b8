"""The embedded backend's first start reports its stages (conversion, loading, first batch) as events, for
a progress display to show; the backend draws nothing itself."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends import _embedded_engine as engine_module
from mmgauge.backends._embedded_engine import CONVERTING, LOADING, EmbeddedEngine, EngineOutput
from mmgauge.backends.base import Request, Stage
from mmgauge.backends.embedded import EmbeddedBackend
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig, Message


class FakeTokenizer:
    pad_token_id = 0
    padding_side = "right"


class FakeModel:
    def eval(self) -> None:
        pass


def fake_weights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """No real weights: converting and loading are recorded, the converted copy goes to `tmp_path`."""
    try:
        engine_module.check_installed()
    except UserError as missing:
        pytest.skip(str(missing))
    done: list[str] = []

    def convert(path: Path, converted: Path, threads: int | None, progress: Any = None) -> tuple[Any, Any]:
        done.append("convert")
        for tensor in range(3):  # as the real conversion counts the tensors it dequantizes
            progress(tensor, 3)
        progress(3, 3)
        return FakeTokenizer(), FakeModel()

    monkeypatch.setattr(engine_module, "convert_gguf", convert)
    monkeypatch.setattr(EmbeddedEngine, "converted_dir", lambda self: tmp_path / "converted")
    monkeypatch.setattr(engine_module.OcrReader, "load", lambda self: done.append("ocr"))
    return done


def answers(self: EmbeddedEngine, items: list[Any], **options: Any) -> list[EngineOutput]:
    self.load()
    return [EngineOutput(text="yes", prompt_tokens=1, completion_tokens=1, ocr_text="") for _ in items]


def test_the_first_start_reports_conversion_loading_and_the_first_batch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    done = fake_weights(monkeypatch, tmp_path)
    monkeypatch.setattr(EmbeddedEngine, "answer_batch", answers)
    backend = EmbeddedBackend()
    events: list[Stage] = []
    backend.stage_listener = events.append
    request = Request(messages=[Message.user("Is it red?")], config=GenerationConfig())

    first = asyncio.run(backend.generate([request, request]))
    assert [r.text for r in first] == ["yes", "yes"]
    batch = "first batch (2 requests)"
    counted = [Stage(CONVERTING, done=done, total=3) for done in range(4)]
    assert events == [Stage(CONVERTING), *counted, Stage(CONVERTING, ended=True), Stage(LOADING),
                      Stage(LOADING, ended=True), Stage(batch), Stage(batch, ended=True)]
    assert all(event.progress for event in counted)
    assert done == ["convert", "ocr"]

    asyncio.run(backend.generate([request]))
    assert len(events) == 10  # later batches are no stage


def test_the_conversion_counts_the_tensors_transformers_dequantizes_and_draws_no_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("transformers")
    import importlib

    gguf_utils: Any = importlib.import_module("transformers.modeling_gguf_pytorch_utils")
    from mmgauge.backends._embedded_weights import _counting_tensors

    original = gguf_utils.tqdm
    told: list[tuple[int, int]] = []
    with _counting_tensors(lambda done, total: told.append((done, total))):
        walked = list(gguf_utils.tqdm(iter(["a", "b"]), desc="Converting and de-quantizing GGUF tensors..."))
    assert walked == ["a", "b"] and told == [(0, 2), (1, 2), (2, 2)]
    assert gguf_utils.tqdm is original
    assert capsys.readouterr().err == ""


def test_the_conversion_knows_its_tensor_count_from_the_gguf_header(tmp_path: Path) -> None:
    from mmgauge.backends._embedded_weights import gguf_tensor_count

    header = tmp_path / "m.gguf"
    header.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + (272).to_bytes(8, "little") + b"\0" * 8)
    assert gguf_tensor_count(header) == 272
    header.write_bytes(b"nope")
    assert gguf_tensor_count(header) == 0
    assert gguf_tensor_count(tmp_path / "missing.gguf") == 0
