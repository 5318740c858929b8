"""The run folder's thumbnails: made by a worker thread from the bytes planning decoded, paused on demand."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

import mmgauge.runner.images as images_module
from mmgauge.core.thumbnails import thumbnail_jpeg
from mmgauge.core.types import ImageRef
from mmgauge.runner.images import ImageLedger
from mmgauge.store.run_folder import RunFolder
from mmgauge.testing.toy import tiny_png


def _embedded(seed: int) -> ImageRef:
    return ImageRef(b64=base64.b64encode(tiny_png(seed)).decode())


def _thumbs(folder: RunFolder) -> dict[str, bytes]:
    return {path.stem: path.read_bytes() for path in (folder.path / "thumbs").glob("*.jpg")}


@pytest.mark.parametrize("held", [images_module.MAX_HELD_BYTES, 0])
def test_thumbnails_are_those_of_the_images_whatever_decoded_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held: int
) -> None:
    # With no room for decoded bytes, the writer decodes each image again: the same thumbnails.
    monkeypatch.setattr(images_module, "MAX_HELD_BYTES", held)
    folder = RunFolder(tmp_path / "run")
    ledger = ImageLedger(folder)
    refs = [_embedded(seed) for seed in range(5)]
    with ledger.writing_behind():
        ledger.prepare(refs + refs[:2])
    expected = {ref.sha256(): thumbnail_jpeg(tiny_png(seed)) for seed, ref in enumerate(refs)}
    assert _thumbs(folder) == expected


def test_a_paused_writer_makes_its_thumbnails_on_leaving(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    ledger = ImageLedger(folder)
    with ledger.writing_behind() as writer:
        writer.pause()
        ledger.prepare([_embedded(1), _embedded(2)])
        assert _thumbs(folder) == {}
    assert len(_thumbs(folder)) == 2


def test_images_noted_before_the_writer_starts_get_thumbnails_and_after_sealing_none(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    ledger = ImageLedger(folder)
    early, asked, late = _embedded(1), _embedded(2), _embedded(3)
    ledger.refs([early])
    with ledger.writing_behind() as writer:
        ledger.prepare([asked])
        writer.seal()
        ledger.refs([late])
    assert set(_thumbs(folder)) == {early.sha256(), asked.sha256()}


def test_a_failing_body_stops_the_writer(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    ledger = ImageLedger(folder)
    with pytest.raises(RuntimeError), ledger.writing_behind() as writer:
        writer.pause()
        ledger.prepare([_embedded(seed) for seed in range(3)])
        raise RuntimeError("planning failed")
    assert _thumbs(folder) == {}


def test_one_thumbnail_at_a_time_until_the_requests_are_sent_then_several(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    monkeypatch.setattr(images_module, "WORKERS", 2)
    folder = RunFolder(tmp_path / "run")
    ledger = ImageLedger(folder)
    started = [threading.Event(), threading.Event()]
    release = threading.Event()
    calls = 0
    write = ledger.write_thumbnail

    def blocking_write(sha: str, image: ImageRef, data: bytes | None) -> int:
        nonlocal calls
        calls += 1
        started[calls - 1].set()
        release.wait(timeout=60)
        return write(sha, image, data)

    monkeypatch.setattr(ledger, "write_thumbnail", blocking_write)
    with ledger.writing_behind() as writer:
        try:
            ledger.prepare([_embedded(1), _embedded(2)])
            assert started[0].wait(timeout=10)
            # Planning: the second waits for the first, which is not done.
            assert not started[1].wait(timeout=0.3)
            writer.resume()  # the requests are sent: both at once
            assert started[1].wait(timeout=10)
        finally:
            release.set()
    assert len(_thumbs(folder)) == 2
