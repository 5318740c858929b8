"""`mmgauge cache stats|clear`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from mmgauge.core.params import Opt

CACHE_PATH_HELP = (
    "Response cache file (default $XDG_CACHE_HOME/mmgauge/responses.sqlite, or ~/.cache/mmgauge/... when "
    "XDG_CACHE_HOME is unset)."
)
#: What the known parts of the cache folder are, for `cache stats`.
PART_NOTES = {
    "embedded": "the default model's text model, converted once from the bundled GGUF file; "
    "safe to delete, rebuilt when next used",
}


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _size(path: Path) -> int:
    """Bytes in ``path``: a file's size, or the files below a folder (links are not followed)."""
    if path.is_symlink() or path.is_file():
        return path.lstat().st_size
    total = 0
    for entry in path.rglob("*"):
        if entry.is_symlink() or entry.is_file():
            total += entry.lstat().st_size
    return total


def folder_parts(folder: Path, responses: Path) -> list[tuple[str, int]]:
    """(name, bytes) for each entry of the cache folder; the response cache and its WAL/SHM files are one."""
    if not folder.is_dir():
        return []
    parts: dict[str, int] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(responses.name):
            name = responses.name
        else:
            name = entry.name + ("/" if entry.is_dir() and not entry.is_symlink() else "")
        parts[name] = parts.get(name, 0) + _size(entry)
    return list(parts.items())


def stats(cache_path: Annotated[Path | None, Opt("--cache-path", help=CACHE_PATH_HELP)] = None) -> None:
    """Responses per model, and every part of the cache folder with its size."""
    from rich.console import Console

    from mmgauge.store.cache import ResponseCache, default_cache_path

    path = cache_path or default_cache_path()
    cache = ResponseCache(path)
    try:
        info = cache.stats()
    finally:
        cache.close()
    console = Console(highlight=False, soft_wrap=True)
    summary = f"cache {info.path}: {info.entries} responses, {_megabytes(info.size_bytes)}"
    console.print(summary, markup=False)
    for model, count in sorted(info.models.items()):
        console.print(f"  {model or '(unknown model)'}: {count}", markup=False)
    if cache_path is not None:
        return
    # The default location: the folder also holds the default model's converted weights, and so on.
    folder = path.parent
    parts = folder_parts(folder, path)
    total = sum(size for _, size in parts)
    console.print(f"cache folder {folder}: {_megabytes(total)} in all", markup=False)
    for name, size in parts:
        note = PART_NOTES.get(name.rstrip("/"), "the response cache" if name == path.name else "")
        console.print(f"  {name}: {_megabytes(size)}" + (f"  ({note})" if note else ""), markup=False)

def clear(
    cache_path: Annotated[Path | None, Opt("--cache-path", help=CACHE_PATH_HELP)] = None,
    model: Annotated[str | None, Opt("--model-fingerprint", help="Clear only this model's entries.")] = None,
) -> None:
    """Delete cached responses (all, or one model's)."""
    from rich.console import Console

    from mmgauge.store.cache import ResponseCache, default_cache_path

    cache = ResponseCache(cache_path or default_cache_path())
    try:
        removed = cache.clear(model)
    finally:
        cache.close()
    Console().print(f"removed {removed} cached responses from {cache.path}")
