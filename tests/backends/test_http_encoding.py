"""Request bodies: serialised once with images spliced in; each distinct image encoded once, bounded."""

from __future__ import annotations

import base64
import json

from mmgauge.backends._images import ImageEncoder
from mmgauge.backends.base import Request
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.backends.request_options import RequestOptions
from mmgauge.core.types import GenerationConfig, ImageRef, Message
from mmgauge.testing.toy import tiny_png


def request(text: str, *images: ImageRef) -> Request:
    return Request(messages=[Message.user(text, list(images))], config=GenerationConfig(max_tokens=3))


def test_the_body_is_plain_json_with_the_image_spliced_in() -> None:
    backend = OpenAIBackend("http://x/v1", "m", request=RequestOptions(extra_body={"top_k": 3}))
    png = tiny_png(3)
    text = 'tricky "<<text>>" \\ ü 中文'
    raw = backend.encode(request(text, ImageRef(data=png), ImageRef(data=tiny_png(4))))
    body = json.loads(bytes(raw))
    first, second, prompt = body["messages"][0]["content"]
    assert first["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(png).decode()
    assert second["image_url"]["url"].startswith("data:image/png;base64,")
    assert prompt == {"type": "text", "text": text} and body["top_k"] == 3
    assert backend.payload(request("q")) == json.loads(bytes(backend.encode(request("q"))))


def test_each_distinct_image_is_encoded_once() -> None:
    backend = OpenAIBackend("http://x/v1", "m")
    images = [ImageRef(data=tiny_png(i)) for i in range(3)]
    for round in range(4):  # MMBench's circular evaluation: every image four times
        for image in images:
            backend.encode(request(f"round {round}", image))
    same_bytes_new_object = ImageRef(data=tiny_png(0))
    backend.encode(request("again", same_bytes_new_object))
    assert backend.images.encoded == 3


def test_the_image_cache_is_bounded_by_bytes() -> None:
    images = [ImageRef(data=tiny_png(i)) for i in range(10)]
    one = len(ImageEncoder().encode(images[0])[1])
    encoder = ImageEncoder(max_bytes=3 * one)
    for image in images:
        encoder.encode(image)
    assert encoder._size <= 3 * one and len(encoder._cache) <= 3
    encoder.encode(images[-1])  # the most recent stays cached
    assert encoder.encoded == 10


def images_of_one_size(count: int) -> list[ImageRef]:
    images = [ImageRef(data=tiny_png(i)) for i in range(1, 40)]
    size = len(ImageEncoder().encode(images[0])[1])
    same = [image for image in images if len(ImageEncoder().encode(image)[1]) == size]
    assert len(same) >= count
    return same[:count]


def test_images_cycled_through_beyond_the_cache_still_hit_each_round() -> None:
    images = images_of_one_size(10)
    one = len(ImageEncoder().encode(images[0])[1])
    encoder = ImageEncoder(max_bytes=5 * one)
    for _ in range(4):  # circular rounds in file order: ten images, room for five
        for image in images:
            encoder.encode(image)
    assert encoder.encoded == 10 + 3 * 6  # each later round finds the four oldest (least-recently-used: none)


def test_an_image_asked_for_in_a_row_is_encoded_once_even_with_room_for_one() -> None:
    images = images_of_one_size(5)
    encoder = ImageEncoder(max_bytes=len(ImageEncoder().encode(images[0])[1]))
    for image in images:
        for _ in range(4):  # the runner's order: grouped by image
            encoder.encode(image)
    assert encoder.encoded == 5


def test_base64_images_from_a_tsv_are_sent_as_they_are() -> None:
    png = tiny_png(5)
    text = base64.b64encode(png).decode()
    mime, data = ImageEncoder().encode(ImageRef(b64=text))
    assert (mime, data) == ("image/png", text.encode())
    wrapped = "\n".join(text[i : i + 20] for i in range(0, len(text), 20))
    assert ImageEncoder().encode(ImageRef(b64=wrapped)) == ("image/png", text.encode())  # re-encoded clean


def test_a_tsv_image_s_body_is_the_plain_json_encoding_byte_for_byte() -> None:
    """Base64 text from a TSV is spliced in as it is: the bytes equal json.dumps of the whole body."""
    backend = OpenAIBackend("http://x/v1", "m")
    text = base64.b64encode(tiny_png(5)).decode()
    prompt = 'Hint: 提示。\nQuestion: "which"?\nA. café\tB. \\'
    req = request(prompt, ImageRef(b64=text, origin_file="data.tsv", origin_line=2))
    expected = {
        "model": "m",
        "messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{text}"}},
            {"type": "text", "text": prompt},
        ]}],
        "temperature": 0.0, "max_tokens": 3, "seed": 0,
    }
    plain = json.dumps(expected, ensure_ascii=False, separators=(",", ":")).encode()
    assert bytes(backend.encode(req)) == plain
    assert bytes(backend.encode(req)) == plain  # the image's encoding is cached: the same bytes again


def test_an_image_is_sent_as_its_own_piece_of_the_body_never_copied_into_it() -> None:
    backend = OpenAIBackend("http://x/v1", "m")
    image = ImageRef(data=tiny_png(7))
    body = backend.encode(request("two of the same", image, image))
    b64 = backend.images.encode(image)[1]
    assert [part for part in body.parts if part is b64] == [b64, b64]  # the encoding's own bytes object
    assert body.size == len(bytes(body)) and len(body.parts) == 5
    assert bytes(body).count(b64) == 2 and b"<<" not in bytes(body)
