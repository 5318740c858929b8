"""Local model checkpoints: finding a folder (a path or a repo id in the local Hugging Face cache, never
downloaded) and fingerprinting its files cheaply, shared by the `hf` and `vllm` backends.

The fingerprint goes into cache keys: it must change whenever the weights do, without reading gigabytes.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError

EXTRA_HINT = "the hf backend needs the 'hf' extra: pip install 'mmgauge[hf]'"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
_BLOB_NAME = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".ckpt")
_SMALL_FILE = 16 * 1024 * 1024


def resolve_model_dir(path: str, *, revision: str | None = None) -> Path:
    """The checkpoint folder of a path or repo id (the snapshot of `revision`, a branch, tag or commit)."""
    local = Path(path).expanduser()
    if local.exists():
        if revision is not None:
            # A folder holds one version: a revision asked of it would be silently ignored.
            raise UserError(
                f"revision {revision!r} needs a repo id in the local Hugging Face cache, not a folder",
                file=str(local),
            )
        if not (local / "config.json").is_file():
            raise UserError("not a transformers model folder (no config.json)", file=str(local))
        return local.resolve()
    if not _REPO_ID.match(path):
        raise UserError("model folder not found", file=path)
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise UserError(EXTRA_HINT) from None
    try:
        snapshot = Path(snapshot_download(path, revision=revision, local_files_only=True))
    except Exception:  # the hub raises several types for "not cached"; all mean the same here
        which = "" if revision is None else f" at revision {revision!r}"
        option = "" if revision is None else f" --revision {revision}"
        raise UserError(
            f"'{path}'{which} is neither a local folder nor in the local Hugging Face cache; it must be "
            f"downloaded beforehand (e.g. `hf download {path}{option}`), nothing is downloaded at run time",
            field="--model",
        ) from None
    if not (snapshot / "config.json").is_file():
        raise UserError("cached snapshot has no config.json (incomplete download?)", file=str(snapshot))
    return snapshot


def hash_model_files(digest: Any, directory: Path) -> None:
    """Feed a checkpoint folder's files into a fingerprint digest (names and cheap content identities)."""
    for relative, file in _model_files(directory):
        digest.update(relative.encode() + b"\0" + _file_identity(file) + b"\0")


def _model_files(directory: Path) -> list[tuple[str, Path]]:
    found = []
    for file in directory.rglob("*"):
        relative = file.relative_to(directory)
        # Hidden entries (.cache, .git) and prose do not change what the model answers.
        if any(part.startswith(".") for part in relative.parts) or file.suffix == ".md" or not file.is_file():
            continue
        found.append((relative.as_posix(), file))
    return sorted(found)


def _file_identity(file: Path) -> bytes:
    """Bytes that change whenever the file's content does, without reading gigabytes of weights."""
    if file.is_symlink():
        # Hugging Face cache snapshots link to blobs named by their content hash: the name is the identity.
        target = file.resolve().name
        if _BLOB_NAME.match(target):
            return b"blob:" + target.encode()
    size = file.stat().st_size
    if size <= _SMALL_FILE and not file.name.endswith(_WEIGHT_SUFFIXES):
        return b"sha256:" + hashlib.sha256(file.read_bytes()).digest()
    digest = hashlib.sha256(f"size={size}\0".encode())
    with file.open("rb") as handle:
        spans = _safetensors_spans(handle, size, digest) if file.suffix == ".safetensors" else None
        # Without a layout to follow: evenly spaced samples, both ends included.
        for start, length in spans or [((size - 65536) * i // 16, 65536) for i in range(17)]:
            handle.seek(max(0, start))
            digest.update(handle.read(length))
    return b"sampled:" + digest.digest()


def _safetensors_spans(handle: io.BufferedReader, size: int, digest: Any) -> list[tuple[int, int]] | None:
    # The header names every tensor's dtype, shape and offsets; the two ends of each tensor's data then tell
    # apart checkpoints of one architecture (a fine-tune moves almost every weight, added tokens move the last
    # rows of the embeddings).
    header_len = int.from_bytes(handle.read(8), "little")
    if not 0 < header_len <= size - 8:
        return None
    header = handle.read(header_len)
    try:
        entries = sorted((k, v["data_offsets"]) for k, v in json.loads(header).items() if k != "__metadata__")
    except (ValueError, KeyError, TypeError):
        return None
    digest.update(header)
    base = 8 + header_len
    ends = [(begin, max(begin, end - 256), end) for _, (begin, end) in entries]
    return [(base + at, min(256, end - at)) for begin, last, end in ends for at in (begin, last)]


def one_line(error: BaseException) -> str:
    """An exception as one short line (its type and first line), for errors shown per request."""
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(error).__name__}: {first}"[:500]
