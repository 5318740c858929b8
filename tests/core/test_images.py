"""Images are checked when loaded, and a bad one names where it came from."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from mmgauge.core.errors import UserError
from mmgauge.core.types import ImageRef
from mmgauge.testing.server import FakeOpenAIServer
from mmgauge.testing.toy import tiny_png


def test_base64_with_line_breaks_is_accepted() -> None:
    text = base64.b64encode(tiny_png(3)).decode()
    wrapped = "\n".join(text[i : i + 20] for i in range(0, len(text), 20))
    assert ImageRef(b64=wrapped).load() == tiny_png(3)


@pytest.mark.parametrize(
    ("b64", "message"),
    [
        ("!!!notbase64@@", "broken base64"),
        (base64.b64encode(b"plain text, no image").decode(), "not an image"),
    ],
)
def test_bad_base64_names_file_line_and_column(b64: str, message: str) -> None:
    image = ImageRef(b64=b64, origin_file="data.tsv", origin_line=7, origin_field="image")
    with pytest.raises(UserError, match=message) as caught:
        image.load()
    assert str(caught.value).startswith("data.tsv:7, field 'image': ")


def test_unreadable_or_non_image_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="cannot read image file"):
        ImageRef(path=str(tmp_path / "missing.png")).load()
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    with pytest.raises(UserError, match=r"notes\.png: the image data is not an image"):
        ImageRef(path=str(text)).load()


def test_mme_tsv_with_broken_base64_stops_with_one_line(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    good = base64.b64encode(tiny_png(1)).decode()
    rows = ["index\timage\tquestion\tanswer\tcategory\timage_path",
            f"1\t{'!' * 80}\tIs it red? Please answer yes or no.\tYes\texistence\t1.png",
            "2\t1\tIs it blue? Please answer yes or no.\tNo\texistence\t1.png",
            f"3\t{good}\tIs it red? Please answer yes or no.\tYes\tcolor\t2.png",
            "4\t3\tIs it blue? Please answer yes or no.\tNo\tcolor\t2.png"]
    data = tmp_path / "mme.tsv"
    data.write_text("\n".join(rows) + "\n")
    out = tmp_path / "o"
    result = cli("run", "--bench", "mme", "--model", "mock:Yes", "--data", data, "--out", out, "--no-cache")
    assert result.code == 2, result.out + result.err
    assert result.err.strip().startswith(f"error: {data}:2, field 'image': broken base64")
    assert "Traceback" not in result.err


def vlmevalkit_tsv(path: Path, images: int, questions_per_image: int) -> Path:
    """MMBench as VLMEvalKit stores it: each image's base64 text once, in the first row that shows it; every
    other row about that image (its other questions and the circular copies, index + k * 1e6) holds the
    index of that row instead; non-ASCII text."""
    import csv

    header = ["index", "question", "hint", "A", "B", "C", "D", "answer", "category", "l2-category", "split",
              "image"]
    rows = []
    for image in range(images):
        owner = image * questions_per_image
        for question in range(questions_per_image):
            index = owner + question
            options = [f"choix {k} — {index}" for k in range(4)]
            for copy in range(4):
                shifted = options[copy:] + options[:copy]
                first = index == owner and copy == 0
                cell = base64.b64encode(tiny_png(image)).decode() if first else str(owner)
                rows.append([str(index + copy * 1_000_000), f"Quelle option décrit l'image {image} ?", "",
                             *shifted, "ABCD"[(4 - copy) % 4], "attribute_recognition",
                             "finegrained_perception (instance-level)", "dev", cell])
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_a_run_decodes_each_distinct_tsv_image_once(tmp_path: Path, server: FakeOpenAIServer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import mmgauge

    decoded: list[int] = []
    decode = ImageRef._decode

    def counting(self: ImageRef, text: str) -> bytes:
        decoded.append(len(text))
        return decode(self, text)

    monkeypatch.setattr(ImageRef, "_decode", counting)
    data = vlmevalkit_tsv(tmp_path / "MMBench_DEV_EN.tsv", images=12, questions_per_image=5)
    results = mmgauge.evaluate(model=f"openai:m@{server.base_url}", benchmarks=["mmbench"], data=data,
                               out=tmp_path / "run", cache=False, judge="none")
    assert server.requests == 12 * 5 * 4
    assert server.images_seen == 12 * 5 * 4
    # Each distinct image once, for its hash (cache key, records, request planning) and its thumbnail in the
    # run folder both; never per request.
    assert len(decoded) == 12
    assert len(list((tmp_path / "run" / "thumbs").glob("*.jpg"))) == 12
    assert list(results.benchmarks) == ["mmbench"]


def test_the_image_pool_shares_a_reference_per_equal_content_and_only_then() -> None:
    from mmgauge.core.types import ImagePool, _sampled

    pool = ImagePool("data.tsv")
    # Long contents of one length, equal heads and tails, differing in one character of the middle (a key made
    # of slices would miss it: they are compared whole).
    head, tail = "A" * 5000, "B" * 5000
    texts = [head + middle + tail for middle in ("x" * 3001, "x" * 600 + "y" + "x" * 2400)]
    assert _sampled(texts[0]) == _sampled(texts[1])
    first = pool.embedded(texts[0], 2)
    assert pool.embedded("".join(list(texts[0])), 9) is first  # an equal copy, not the same object
    second = pool.embedded(texts[1], 3)
    assert second is not first and second.origin_line == 3
    assert pool.embedded(texts[1].encode(), 4) not in (first, second)  # bytes are not text
    assert pool.embedded(texts[1].encode(), 5).origin_line == 4
    short = pool.embedded("c2hvcnQ=", 6)
    assert pool.embedded("c2hvcnQ=", 7) is short and short is not first
