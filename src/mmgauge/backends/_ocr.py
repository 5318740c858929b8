"""Offline OCR for the embedded backend: RapidOCR with the PP-OCR ONNX models bundled in its wheel.

The model files are passed to RapidOCR by path, so it never falls back to downloading anything.
``rapidocr`` and ``onnxruntime`` are imported only when :meth:`OcrReader.load` runs.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import io
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError

# The three model files rapidocr 3.x ships inside its wheel (rapidocr/models/).
DET_MODEL = "PP-OCRv6_det_small.onnx"
REC_MODEL = "PP-OCRv6_rec_small.onnx"
CLS_MODEL = "ch_ppocr_mobile_v2.0_cls_mobile.onnx"
OCR_MODEL_FILES = (DET_MODEL, REC_MODEL, CLS_MODEL)

# Lines whose recognition confidence is below this are dropped (RapidOCR's own default is 0.5).
MIN_SCORE = 0.5
# Images with more pixels are not decoded: a few kB of PNG can inflate to gigabytes (a "decompression
# bomb"). Pillow's own warning threshold (Image.MAX_IMAGE_PIXELS, about 89 megapixels); benchmark images are
# far smaller.
MAX_OCR_PIXELS = 89_478_485


class ImageUnreadable(Exception):
    """OCR cannot read one image (damaged, not an image, too large): that request fails, not the run."""


@dataclass(frozen=True)
class OcrLine:
    """One line of text found in an image, with its box's top-left corner in pixels."""

    text: str
    score: float
    left: float
    top: float


def package_dir(module: str) -> Path | None:
    """Where an installed package lives, found without importing (executing) it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def ocr_model_paths() -> dict[str, Path]:
    """The bundled OCR model files by role (det, rec, cls); a UserError if rapidocr or a file is missing."""
    root = package_dir("rapidocr")
    if root is None:
        raise UserError(
            "the embedded model needs the 'embedded' extra (rapidocr is not installed): "
            "pip install 'mmgauge[embedded]'"
        )
    paths = {
        "det": root / "models" / DET_MODEL,
        "rec": root / "models" / REC_MODEL,
        "cls": root / "models" / CLS_MODEL,
    }
    for path in paths.values():
        if not path.is_file():
            raise UserError(
                f"the installed rapidocr does not ship the OCR model {path.name}; "
                "install the tested version: pip install 'rapidocr==3.10.0'",
                file=str(path),
            )
    return paths


def reading_order(lines: list[OcrLine]) -> list[OcrLine]:
    """Sort lines top to bottom, then left to right; boxes whose tops are within 10 px share a row."""
    ordered = sorted(lines, key=lambda line: (line.top, line.left))
    rows: list[list[OcrLine]] = []
    for line in ordered:
        if rows and abs(rows[-1][0].top - line.top) <= 10:
            rows[-1].append(line)
        else:
            rows.append([line])
    return [line for row in rows for line in sorted(row, key=lambda item: item.left)]


class OcrReader:
    """Reads the text in PNG/JPEG bytes; results are cached in memory by the sha256 of the bytes."""

    def __init__(self, *, threads: int | None = None) -> None:
        self._threads = threads
        self._engine: Any = None
        self._cache: dict[str, str] = {}
        self._lock = threading.Lock()

    def load(self) -> None:
        """Create the ONNX sessions; idempotent."""
        if self._engine is not None:
            return
        paths = ocr_model_paths()
        if package_dir("onnxruntime") is None:
            raise UserError(
                "the embedded model needs the 'embedded' extra (onnxruntime is not installed): "
                "pip install 'mmgauge[embedded]'"
            )
        # onnxruntime >= 1.29 on Linux sends usage events to Microsoft (mobile.events.data.microsoft.com) and
        # keeps a device id under ~/.cache/Microsoft unless this is set before it initializes; an offline
        # evaluator should contact no one. The process-wide setting is the only full opt-out it offers.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        onnxruntime: Any = importlib.import_module("onnxruntime")  # untyped; not in mypy's ignore list
        from rapidocr import RapidOCR

        onnxruntime.disable_telemetry_events()
        threads = -1 if self._threads is None else self._threads
        params: dict[str, Any] = {
            "Global.log_level": "error",
            "Global.text_score": MIN_SCORE,
            "Det.model_path": str(paths["det"]),
            "Rec.model_path": str(paths["rec"]),
            "Cls.model_path": str(paths["cls"]),
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1 if self._threads is not None else -1,
        }
        self._engine = RapidOCR(params=params)

    def read(self, image: bytes) -> str:
        """All text lines found in the image, in reading order, one per line ('' if none)."""
        key = hashlib.sha256(image).hexdigest()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        text = "\n".join(line.text for line in self.read_lines(image))
        with self._lock:
            self._cache[key] = text
        return text

    def read_lines(self, image: bytes) -> list[OcrLine]:
        """The lines found in the image with their scores and positions (not cached); ``ImageUnreadable``
        if the image cannot be read or is too large to decode."""
        self.load()
        check_size(image)
        try:
            result = self._engine(image)
        except Exception as exc:  # rapidocr raises its own LoadImageError and cv2 errors for bad bytes
            raise ImageUnreadable(f"OCR could not read the image ({len(image)} bytes): {exc}") from exc
        boxes = getattr(result, "boxes", None)
        texts = getattr(result, "txts", None)
        scores = getattr(result, "scores", None)
        if boxes is None or texts is None or scores is None:
            return []
        lines = [
            OcrLine(
                text=str(text).strip(),
                score=float(score),
                left=float(min(point[0] for point in box)),
                top=float(min(point[1] for point in box)),
            )
            for box, text, score in zip(boxes, texts, scores, strict=True)
            if str(text).strip()
        ]
        return reading_order(lines)


def check_size(image: bytes) -> None:
    """Refuse an image whose header declares more than ``MAX_OCR_PIXELS`` pixels (reads the header only)."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(image)) as opened:
                width, height = opened.size
    except Image.DecompressionBombError as exc:
        raise ImageUnreadable(f"image too large to decode safely: {exc}") from None
    except Exception:  # not an image PIL knows: left to the OCR engine, which says what is wrong
        return
    if width * height > MAX_OCR_PIXELS:
        raise ImageUnreadable(
            f"image of {width}x{height} pixels is larger than the {MAX_OCR_PIXELS} pixels OCR decodes "
            "(a decompression bomb, or a scan to shrink first)"
        )
