"""Data folders are read within themselves: a symbolic link inside one that leads outside it is refused.

A dataset folder is often someone else's download. A link in it (or an `image_path` of `../..`) pointing at a
file elsewhere on the machine would have that file read, and for images sent to a model endpoint. Every
loader that takes files from a folder passes each one through `confined`.

The Hugging Face hub cache is made of links: `datasets--ORG--NAME/snapshots/<commit>/x.parquet` points at
`datasets--ORG--NAME/blobs/<hash>`. For anything inside such a repository folder, the folder it may read
within is the repository folder (`data_root`).
"""

from __future__ import annotations

import os
from pathlib import Path

from mmgauge.core.errors import UserError


def data_root(folder: Path) -> Path:
    """The folder files found under ``folder`` must stay in: the enclosing hub repository folder
    (``datasets--*`` with ``snapshots/``) when there is one, else ``folder`` itself."""
    absolute = Path(os.path.abspath(folder))
    for candidate in (absolute, *absolute.parents):
        if candidate.name.startswith("datasets--") and (candidate / "snapshots").is_dir():
            return candidate
    return absolute


def confined(path: Path, root: Path) -> Path:
    """``path`` unchanged, once it is known to resolve inside ``root``; else a UserError naming it."""
    real_root = root.resolve()
    target = path.resolve()
    if target == real_root or target.is_relative_to(real_root):
        return path
    how = "is a link, or inside one, that leads" if _has_link(path, root) else "points"
    message = f"{how} outside the data folder {root} (to {target}); refusing to read it"
    raise UserError(message, file=str(path))


def _has_link(path: Path, root: Path) -> bool:
    """Whether ``path`` or a folder between it and ``root`` is a link."""
    absolute, base = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    return any(p.is_symlink() for p in (absolute, *absolute.parents) if p != base and is_inside(p, base))


def is_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` lies in ``root`` as written (no links followed, ``..`` resolved)."""
    absolute, base = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    return absolute == base or absolute.is_relative_to(base)
