"""Images as base64 for JSON request bodies, each distinct image encoded once.

MMBench's circular evaluation sends every image four times and retries send it again; encoding a 40 KB image
costs more CPU than everything else a request does. Encodings are kept by content hash in a cache bounded by
bytes, so memory stays flat however large the dataset.
"""

from __future__ import annotations

import base64
import binascii

from mmgauge.core.types import ImageRef

_WHITESPACE = (" ", "\n", "\r", "\t")


def image_mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data.startswith(b"BM"):
        return "image/bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    return "application/octet-stream"


#: The image types the major APIs take as they are (OpenAI's, and Anthropic's `media_type` values).
COMMON_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Modes a PNG holds as they are; an image in another mode (CMYK, 32-bit, ...) becomes RGB(A) first.
_PNG_MODES = frozenset({"1", "L", "LA", "P", "RGB", "RGBA", "I;16"})


class ImageEncoder:
    """(media type, base64 bytes) per image, cached by the image's sha256 up to `max_bytes` of base64.

    An image whose type is not in `accepted` (a BMP or TIFF for an API that takes PNG, JPEG, GIF and WebP)
    is sent as a PNG of the same pixels, so that it reaches the model instead of failing every request that
    shows it; None accepts every type (a local engine that reads images with PIL).

    When the cache is full, the newest entry makes room. Least-recently-used would be the usual choice, but
    requests that cycle through more images than fit (circular rounds sent in file order) would then never
    find theirs; keeping the oldest, the images that fit hit in every round. An image asked for several
    times in a row (the runner sends requests grouped by image) hits under either policy.
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024, accepted: frozenset[str] | None = None) -> None:
        self.max_bytes = max_bytes
        self.accepted = accepted
        self._cache: dict[str, tuple[str, bytes]] = {}  # in the order the entries came
        self._size = 0
        self.encoded = 0  # how many encodings were computed (the rest were cache hits)

    def encode(self, image: ImageRef) -> tuple[str, bytes]:
        # sha256() is memoised on the ImageRef, and the runner has usually computed it for the cache key.
        key = image.sha256()
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        entry = self._compute(image)
        self.encoded += 1
        size = len(entry[1])
        if size <= self.max_bytes:
            while self._size + size > self.max_bytes:
                _, (_, newest) = self._cache.popitem()  # a dict gives back its last entry
                self._size -= len(newest)
            self._cache[key] = entry
            self._size += size
        return entry

    def _compute(self, image: ImageRef) -> tuple[str, bytes]:
        text = image.b64
        # Base64 text (images inside TSVs) that decoded strictly (sha256() above loaded it) is sent as it is;
        # only its first bytes are decoded, for the media type. Wrapped text is re-encoded.
        if text is not None and len(text) > 16 and not any(ws in text for ws in _WHITESPACE):
            try:
                head = base64.b64decode(text[:16], validate=True)
            except (binascii.Error, ValueError):
                head = b""
            mime = image_mime(head)
            if mime != "application/octet-stream" and self._takes(mime):
                return mime, text.encode("ascii")
        data = image.load()
        mime = image_mime(data)
        if not self._takes(mime):
            png = as_png(data)
            if png is not None:
                return "image/png", base64.b64encode(png)
        return mime, base64.b64encode(data)

    def _takes(self, mime: str) -> bool:
        return self.accepted is None or mime in self.accepted

    def data_url(self, image: ImageRef) -> str:
        mime, data = self.encode(image)
        return f"data:{mime};base64,{data.decode('ascii')}"


def as_png(data: bytes) -> bytes | None:
    """The image's first frame as a PNG of the same pixels; None where PIL cannot read it."""
    import io

    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as opened:
            frame = opened if opened.mode in _PNG_MODES else opened.convert(
                "RGBA" if "A" in opened.getbands() else "RGB")
            out = io.BytesIO()
            frame.save(out, format="PNG")
    except (OSError, ValueError, Image.DecompressionBombError):  # PIL's unreadable-image error is an OSError
        return None
    return out.getvalue()
