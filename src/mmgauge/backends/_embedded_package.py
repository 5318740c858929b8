"""Facts about the embedded engine's installed files: their hashes, and their distributions' metadata."""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def distribution(name: str) -> tuple[str, str, str]:
    """(version, license, publisher) of an installed distribution, as its metadata states them."""
    try:
        meta = importlib.metadata.metadata(name)
    except importlib.metadata.PackageNotFoundError:
        return ("not installed", "unknown", "unknown")

    def first(*keys: str) -> str:
        for key in keys:
            values = meta.get_all(key)
            if values and values[0].strip():
                return str(values[0]).strip()
        return "unknown"

    return (first("Version"), first("License-Expression", "License"), first("Author", "Author-email"))
