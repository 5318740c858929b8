"""Image references for records, and thumbnails written once into the run folder.

A record names each image it was asked about by content hash, with the resolved file path when the image
came from a file. An image that came inside a data file (TSV base64, parquet bytes) gets a small thumbnail in
the run folder, written once per distinct image, so readers (the report) never load the dataset again.

Thumbnails are made in a worker thread while the last answers come back (`writing_behind`): decoding a PNG
costs more CPU than sending it (about 10 ms for a 1 MB image), so made while requests are still being sent
they would slow the sending (the thread holds the GIL while it decodes), and made after the last answer
they would add to the run's length.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from mmgauge.core.thumbnails import thumbnail_jpeg
from mmgauge.core.types import ImageRef, StoredImage
from mmgauge.store.run_folder import RunFolder

#: Thumbnails written per run folder at most: a report shows a sample of a very large run, not every image.
MAX_THUMBNAILS: Final = 20_000


class ImageLedger:
    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        #: Embedded images met in this command, by hash, whose thumbnail may still need writing.
        self._embedded: dict[str, ImageRef] = {}
        #: The reference of each image file, by (path as given, sha256): resolving a path touches the file
        #: system, and records asking about one image share its (never modified) reference.
        self._files: dict[tuple[str, str], StoredImage] = {}
        #: The reference of each embedded image, by sha256, shared the same way (one model fewer per answer).
        self._inline: dict[str, StoredImage] = {}
        #: Every embedded image noted in this command: each is given to the thumbnail writer once.
        self._noted: set[str] = set()
        self.undecodable = 0

    def prepare(self, images: list[ImageRef]) -> None:
        """Resolve the paths of these image files now (planning) rather than while answers land, and note the
        embedded ones, whose thumbnails `writing_behind` makes while the last answers come back."""
        for image in images:
            sha = image.sha256()
            if image.path is not None:
                if (image.path, sha) not in self._files:
                    self._file_ref(image.path, sha)
            else:
                self._note(sha, image)

    def _file_ref(self, given: str, sha: str) -> StoredImage:
        ref = self._files[given, sha] = StoredImage(sha256=sha, path=str(Path(given).resolve()))
        return ref

    def _note(self, sha: str, image: ImageRef) -> None:
        if sha not in self._noted and len(self._noted) < MAX_THUMBNAILS:
            self._noted.add(sha)
            self._embedded[sha] = image

    def refs(self, images: list[ImageRef]) -> list[StoredImage]:
        out = []
        for image in images:
            sha = image.sha256()
            if image.path is not None:
                out.append(self._files.get((image.path, sha)) or self._file_ref(image.path, sha))
            else:
                self._note(sha, image)
                ref = self._inline.get(sha)
                if ref is None:
                    ref = self._inline[sha] = StoredImage(sha256=sha, path=None)
                out.append(ref)
        return out

    @contextmanager
    def writing_behind(self) -> Iterator[Callable[[], None]]:
        """Write the thumbnails of the images noted so far in a worker thread, from when the body calls the
        function it is given (at the latest on leaving, which waits for them).

        If the body raised, the thread stops after the image it is making (the rest are made by the next
        command that asks about them).
        """
        todo = list(self._embedded.items())
        self._embedded.clear()
        stop = threading.Event()
        with ThreadPoolExecutor(1, thread_name_prefix="mmgauge-thumbnails") as pool:
            started: list[Future[int]] = []

            def begin() -> None:
                if not started:
                    started.append(pool.submit(self._write, todo, stop))

            try:
                yield begin
            except BaseException:
                stop.set()
                raise
            finally:
                if not stop.is_set():
                    begin()
                    started[0].result()

    def write_thumbnails(self) -> int:
        """Write the thumbnails not written yet; returns how many were written."""
        todo = list(self._embedded.items())
        self._embedded.clear()
        return self._write(todo, None)

    def _write(self, todo: list[tuple[str, ImageRef]], stop: threading.Event | None) -> int:
        written = 0
        for sha, image in todo:
            if stop is not None and stop.is_set():
                break
            target = self.folder.thumbnail(sha)
            if target.exists():
                continue
            try:
                jpeg = thumbnail_jpeg(image.load())
            except Exception:  # an image PIL cannot shrink only loses its thumbnail
                self.undecodable += 1
                continue
            self.folder.write_thumbnail(sha, jpeg)
            written += 1
        return written
