"""Image references for records, and thumbnails written once into the run folder.

A record names each image it was asked about by content hash, with the resolved file path when the image
came from a file. An image that came inside a data file (TSV base64, parquet bytes) gets a small thumbnail in
the run folder, written once per distinct image, so readers (the report) never load the dataset again.

Thumbnails are made by a worker thread (`writing_behind`) from the planning on. Planning decodes each embedded
image to hash it and hands those bytes to the thread, so an image is decoded once, not once more for its
thumbnail (about 3 ms for a 1 MB image, holding the GIL). The runner pauses the thread while requests are
being sent: decoding a PNG costs more CPU than sending it (about 10 ms for a 1 MB image), and made then the
thumbnails slowed the sending, the other core being the server's. It goes on once the last requests are in
flight and while the answers are scored, then on two threads (PIL lets go of the GIL while it decodes a PNG:
50 thumbnails of 1 MB PNGs took 0.26 s on two threads against 0.5 s on one, on 2 cores); while planning, one
thread leaves the planning its core.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from mmgauge.core.thumbnails import thumbnail_jpeg
from mmgauge.core.types import ImageRef, StoredImage
from mmgauge.store.run_folder import RunFolder

#: Thumbnails written per run folder at most: a report shows a sample of a very large run, not every image.
MAX_THUMBNAILS: Final = 20_000
#: Decoded image bytes held for the thumbnail writer at most; beyond it, the writer decodes them again itself
#: (planning decodes faster than thumbnails are made: a large dataset's images must not all wait in memory).
MAX_HELD_BYTES: Final = 64 * 2**20
#: Threads making thumbnails once the requests are sent (one before).
WORKERS: Final = max(1, min(2, os.cpu_count() or 1))


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
        #: The thumbnail writer while `writing_behind` runs: embedded images noted then go straight to it.
        self._writer: ThumbnailWriter | None = None

    def prepare(self, images: list[ImageRef]) -> None:
        """Resolve the paths of these image files now (planning) rather than while answers land, and note the
        embedded ones, whose thumbnails `writing_behind` makes. An embedded image whose hash is not known yet
        is decoded once here, for its hash and its thumbnail both."""
        for image in images:
            if image.path is not None:
                sha = image.sha256()
                if (image.path, sha) not in self._files:
                    self._file_ref(image.path, sha)
            else:
                sha, data = image.sha256_and_bytes()
                self._note(sha, image, data)

    def _file_ref(self, given: str, sha: str) -> StoredImage:
        ref = self._files[given, sha] = StoredImage(sha256=sha, path=str(Path(given).resolve()))
        return ref

    def _note(self, sha: str, image: ImageRef, data: bytes | None = None) -> None:
        if sha not in self._noted and len(self._noted) < MAX_THUMBNAILS:
            self._noted.add(sha)
            if self._writer is None:
                self._embedded[sha] = image  # given to the writer when it starts
            elif self._writer.taking:
                self._writer.submit(sha, image, data)

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
    def writing_behind(self) -> Iterator[ThumbnailWriter]:
        """Write the thumbnails of the embedded images noted so far, and of those noted in the body as they
        are noted, in a worker thread, which the body may pause; leaving waits for them.

        If the body raised, the thread stops after the image it is making (the rest are made by the next
        command that asks about them).
        """
        writer = self._writer = ThumbnailWriter(self)
        for sha, image in self._embedded.items():
            writer.submit(sha, image, None)
        self._embedded.clear()
        try:
            yield writer
        except BaseException:
            writer.stop.set()
            raise
        finally:
            self._writer = None
            writer.close()

    def write_thumbnail(self, sha: str, image: ImageRef, data: bytes | None) -> int:
        """Write the image's thumbnail unless the run folder has it (from `data`, the image file's bytes,
        where planning already has them): 1 if written, else 0."""
        target = self.folder.thumbnail(sha)
        if target.exists():
            return 0
        try:
            jpeg = thumbnail_jpeg(image.load() if data is None else data)
        except Exception:  # an image PIL cannot shrink only loses its thumbnail
            return 0
        self.folder.write_thumbnail(sha, jpeg)
        return 1


class ThumbnailWriter:
    """Worker threads making the thumbnails they are given unless paused: one at a time until `resume`
    says the requests are sent, then WORKERS at once. It holds at most MAX_HELD_BYTES of decoded images."""

    def __init__(self, ledger: ImageLedger) -> None:
        self.ledger = ledger
        self.stop = threading.Event()
        self._going = threading.Event()
        self._going.set()
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="mmgauge-thumbnails")
        #: How many workers may make a thumbnail at once (see `resume`).
        self._slots = threading.Semaphore(1)
        self._widened = False
        self._done: list[Future[int]] = []
        self._lock = threading.Lock()
        self._held = 0
        #: Images noted after `seal` get no thumbnail.
        self.taking = True

    def seal(self) -> None:
        """Take no more images (those noted later, by scoring stored records, get no thumbnail); those
        given are still made."""
        self.taking = False

    def pause(self) -> None:
        """Make no thumbnail after those being made until `resume`."""
        self._going.clear()

    def resume(self) -> None:
        """Go on, on all the workers: the requests are sent, and the thread that sent them only waits now."""
        self._going.set()
        with self._lock:
            if not self._widened:
                self._widened = True
                for _ in range(WORKERS - 1):
                    self._slots.release()

    def submit(self, sha: str, image: ImageRef, data: bytes | None) -> None:
        if data is not None:
            with self._lock:
                if self._held + len(data) > MAX_HELD_BYTES:
                    data = None
                else:
                    self._held += len(data)
        self._done.append(self._pool.submit(self._one, sha, image, data))

    def _one(self, sha: str, image: ImageRef, data: bytes | None) -> int:
        try:
            while True:
                self._going.wait()
                with self._slots:
                    if self.stop.is_set():
                        return 0
                    if self._going.is_set():  # not paused while this worker waited for its turn
                        return self.ledger.write_thumbnail(sha, image, data)
        finally:
            if data is not None:
                with self._lock:
                    self._held -= len(data)

    def close(self) -> None:
        """Wait for the thumbnails (once stopped, for those being made); a failure to write one raises."""
        self.resume()
        self._pool.shutdown(wait=True, cancel_futures=self.stop.is_set())
        if not self.stop.is_set():
            for done in self._done:
                done.result()
