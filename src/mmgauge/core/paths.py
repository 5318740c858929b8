"""Where mmgauge keeps files between runs."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/mmgauge``, or ``~/.cache/mmgauge`` when it is unset, empty or relative (the XDG Base
    Directory spec says a relative path there is invalid and must be ignored). Holds the response cache
    (``responses.sqlite``) and the default model's converted weights (``embedded/``)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return base / "mmgauge"


def embedded_cache_dir() -> Path:
    """The default model's text model, converted from the bundled GGUF file once (rebuilt when deleted)."""
    return cache_root() / "embedded"
