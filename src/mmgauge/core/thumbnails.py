"""Small JPEG thumbnails of the images samples were asked about, for reports and sample browsers."""

from __future__ import annotations

import base64
import io
from typing import Final

THUMB_PX: Final = 240
JPEG_QUALITY: Final = 72


def thumbnail_jpeg(raw: bytes, size: int = THUMB_PX) -> bytes:
    """A JPEG at most `size` pixels on its longer side (raises on bytes PIL cannot decode)."""
    from PIL import Image

    with Image.open(io.BytesIO(raw)) as img:
        img.thumbnail((size, size), Image.Resampling.BILINEAR)
        rgb = img.convert("RGB")
    out = io.BytesIO()
    rgb.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    return out.getvalue()


def jpeg_data_url(jpeg: bytes) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
