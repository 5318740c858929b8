"""Images in a type the API does not take (BMP, TIFF; GIF for Gemini) go as a PNG of the same pixels, once
per distinct image; the types it takes go as they are, and a local engine gets every type unchanged."""

from __future__ import annotations

import base64
import io
import json
import typing
from typing import Any

import pytest
from PIL import Image

from mmgauge.backends._images import ImageEncoder
from mmgauge.backends.anthropic import AnthropicBackend
from mmgauge.backends.base import Request
from mmgauge.backends.gemini import GeminiBackend
from mmgauge.backends.http import HTTPBackend
from mmgauge.backends.openai import OpenAIBackend, to_openai_messages
from mmgauge.core.types import GenerationConfig, ImageRef, Message


def picture(fmt: str, mode: str = "RGB") -> tuple[bytes, Image.Image]:
    """A small image with distinct pixels, written in `fmt`; and the pixels as RGB."""
    image = Image.new("RGB", (6, 4))
    image.frombytes(bytes(value for i in range(24) for value in (17 * i % 256, 40 * i % 256, 255 - 9 * i)))
    out = io.BytesIO()
    (image.convert(mode) if mode != "RGB" else image).save(out, format=fmt)
    data = out.getvalue()
    with Image.open(io.BytesIO(data)) as written:
        return data, written.convert("RGB")


def sent(backend: HTTPBackend, data: bytes) -> tuple[str, bytes]:
    """(media type, image bytes) as the request body carries the image."""
    request = Request(messages=[Message.user("q", [ImageRef(data=data)])],
                      config=GenerationConfig(max_tokens=3))
    body: dict[str, Any] = json.loads(bytes(backend.encode(request)))
    if isinstance(backend, AnthropicBackend):
        source = body["messages"][0]["content"][0]["source"]
        return source["media_type"], base64.b64decode(source["data"])
    if isinstance(backend, GeminiBackend):
        inline = body["contents"][0]["parts"][0]["inline_data"]
        return inline["mime_type"], base64.b64decode(inline["data"])
    url = body["messages"][0]["content"][0]["image_url"]["url"]
    head, _, encoded = url.partition(";base64,")
    return head.removeprefix("data:"), base64.b64decode(encoded)


def pixels(data: bytes) -> bytes:
    with Image.open(io.BytesIO(data)) as image:
        return image.convert("RGB").tobytes()


BACKENDS = {
    "openai": lambda: OpenAIBackend("http://x/v1", "m"),
    "anthropic": lambda: AnthropicBackend("http://x", "claude-x"),
    "gemini": lambda: GeminiBackend("http://x", "gemini-x"),
}


@pytest.mark.parametrize("name", sorted(BACKENDS))
@pytest.mark.parametrize(("fmt", "mode"), [("BMP", "RGB"), ("TIFF", "RGB"), ("TIFF", "CMYK")])
def test_a_type_the_api_does_not_take_goes_as_a_png_of_the_same_pixels(name: str, fmt: str,
                                                                       mode: str) -> None:
    data, original = picture(fmt, mode)
    mime, image = sent(BACKENDS[name](), data)
    assert mime == "image/png" and image.startswith(b"\x89PNG")
    assert pixels(image) == original.tobytes()


@pytest.mark.parametrize("name", sorted(BACKENDS))
@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"),
                                           ("WEBP", "image/webp"), ("GIF", "image/gif")])
def test_a_type_the_api_takes_goes_as_it_is(name: str, fmt: str, mime: str) -> None:
    data, _ = picture(fmt)
    if name == "gemini" and fmt == "GIF":  # Gemini documents no GIF: its first frame goes as a PNG
        assert sent(BACKENDS[name](), data)[0] == "image/png"
        return
    assert sent(BACKENDS[name](), data) == (mime, data)


def test_the_types_anthropic_gets_are_the_ones_its_sdk_declares() -> None:
    params = pytest.importorskip("anthropic.types.base64_image_source_param")
    declared = set(typing.get_args(typing.get_type_hints(params.Base64ImageSourceParam)["media_type"]))
    assert AnthropicBackend.image_types == declared
    for fmt in ("BMP", "TIFF", "GIF", "PNG", "JPEG", "WEBP"):
        assert sent(AnthropicBackend("http://x", "claude-x"), picture(fmt)[0])[0] in declared


def test_a_local_engine_gets_every_type_unchanged_and_each_image_is_converted_once() -> None:
    bmp, _ = picture("BMP")
    (message,) = to_openai_messages([Message.user("q", [ImageRef(data=bmp)])], None)
    url = message["content"][0]["image_url"]["url"]
    assert url == "data:image/bmp;base64," + base64.b64encode(bmp).decode()
    encoder = ImageEncoder(accepted=frozenset({"image/png"}))
    for _ in range(3):
        assert encoder.encode(ImageRef(data=bmp))[0] == "image/png"
    assert encoder.encoded == 1


def test_bytes_pil_cannot_read_go_as_they_are() -> None:
    junk = b"BM" + b"\x00" * 40  # a BMP signature with nothing readable behind it
    assert sent(OpenAIBackend("http://x/v1", "m"), junk) == ("image/bmp", junk)
