"""Thumbnails of the images the samples were asked about, for the per-sample browser.

Records name their images (`SampleRecord.images`): by content hash, with the file's path when the image came
from a file; images that came inside a data file have a thumbnail in the run folder. So the report never
loads a dataset. Images are keyed by content, so an image shared by many samples (MMBench's circular copies,
MME's two questions per image, two runs on one dataset) is embedded once. Images are optional for a report:
one that moved or cannot be decoded leaves its sample without a picture and a note says how many.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from mmgauge.core.thumbnails import THUMB_PX, jpeg_data_url, thumbnail_jpeg
from mmgauge.core.types import ImageRef
from mmgauge.report.load import RunView
from mmgauge.store.run_folder import RunFolder

#: The most images one report embeds (a sample browser of a huge run shows only some pictures).
MAX_IMAGES: Final = 20_000


class ImageSource(Protocol):
    def load(self) -> bytes: ...


@dataclass(frozen=True)
class RecordImage:
    """An image a record names: its thumbnail in the run folder, else the file it came from."""

    folder: RunFolder
    sha256: str
    path: str | None

    def load(self) -> bytes:
        thumb = self.folder.thumbnail(self.sha256)
        if thumb.is_file():
            return thumb.read_bytes()
        if self.path is None:
            raise FileNotFoundError(f"no thumbnail for image {self.sha256[:12]}")
        return Path(self.path).read_bytes()

    def stored_thumbnail(self) -> bytes | None:
        """The run folder's thumbnail of the image, which the run made with `thumbnail_jpeg` at `THUMB_PX`:
        embedded as it is, rather than decoded and encoded again."""
        thumb = self.folder.thumbnail(self.sha256)
        return thumb.read_bytes() if thumb.is_file() else None


def _key(image: ImageSource) -> str:
    if isinstance(image, RecordImage):
        return "s:" + image.sha256
    if isinstance(image, ImageRef) and image.b64 is not None:
        return "b:" + hashlib.sha1(image.b64.encode("ascii", "replace")).hexdigest()
    if isinstance(image, ImageRef) and image.data is not None:
        return "d:" + hashlib.sha1(image.data).hexdigest()
    return "p:" + str(getattr(image, "path", id(image)))


def thumbnail(raw: bytes, size: int = THUMB_PX) -> str:
    """A JPEG data URL at most `size` pixels on its longer side."""
    return jpeg_data_url(thumbnail_jpeg(raw, size))


@dataclass
class ImageIndex:
    """Sample images per (run index, benchmark, sample id) and the distinct thumbnails, built on demand."""

    refs: dict[tuple[int, str, str], list[ImageSource]] = field(default_factory=dict)
    urls: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _ids: dict[str, int] = field(default_factory=dict)
    #: By object identity: copies of a sample share one ImageRef, so its text is hashed once, not per copy
    #: (the refs stay alive in `refs`, so an id is never reused while this index lives).
    _by_ref: dict[int, int] = field(default_factory=dict)
    _failed: int = 0
    _over: int = 0

    def image_ids(self, run: int, benchmark: str, sample_id: str) -> list[int]:
        """Indexes into `urls` of the sample's images in order; images that cannot be read are left out."""
        ids = (self._thumb(image) for image in self.refs.get((run, benchmark, sample_id), ()))
        return [i for i in ids if i >= 0]

    def _thumb(self, image: ImageSource) -> int:
        memo = self._by_ref.get(id(image))
        if memo is not None:
            return memo
        key = _key(image)
        known = self._ids.get(key)
        if known is not None:
            self._by_ref[id(image)] = known
            return known
        if len(self.urls) >= MAX_IMAGES:
            self._over += 1
            return -1
        try:
            stored = image.stored_thumbnail() if isinstance(image, RecordImage) else None
            url = jpeg_data_url(stored) if stored is not None else thumbnail(image.load())
        except Exception:  # any undecodable image only loses its thumbnail
            self._failed += 1
            self._ids[key] = self._by_ref[id(image)] = -1
            return -1
        self._ids[key] = self._by_ref[id(image)] = len(self.urls)
        self.urls.append(url)
        return self._ids[key]

    def finish(self) -> None:
        if self._failed:
            self.notes.append(f"{self._failed} images could not be decoded and are not shown")
        if self._over:
            self.notes.append(f"only the first {MAX_IMAGES} distinct images are shown")


def collect_images(runs: list[RunView]) -> ImageIndex:
    index = ImageIndex()
    for number, run in enumerate(runs):
        folder = RunFolder(run.path)
        # One object per distinct image of the run: the samples sharing it (circular copies, the questions
        # of one image) then share its thumbnail through the index's memo by object.
        known: dict[tuple[str, str | None], RecordImage] = {}
        unnamed = 0
        for bench in run.benchmarks.values():
            for row in bench.rows:
                if row.images:
                    index.refs[(number, row.benchmark, row.sample_id)] = [
                        known.get(image) or known.setdefault(image, RecordImage(folder, *image))
                        for image in row.images]
                elif row.images is None:
                    unnamed += 1
        if unnamed:
            index.notes.append(f"{run.label}: {unnamed} answers were recorded by an older mmgauge that "
                               "did not name their images; they are shown without pictures")
    return index
