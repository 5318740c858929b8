"""Data folders are read within themselves: a symbolic link inside one that leads outside it is refused.

A dataset folder is often someone else's download. A link in it (or an `image_path` of `../..`) pointing at a
file elsewhere on the machine would have that file read, and for images sent to a model endpoint. Every
loader that takes files from a folder passes each one through `confined`.

The Hugging Face hub cache is made of links: `datasets--ORG--NAME/snapshots/<commit>/x.parquet` points at
`datasets--ORG--NAME/blobs/<hash>`. For anything inside such a repository folder, the folder it may read
within is the repository folder (`data_root`), and that holds for the file or folder `--data` names as well
(`within_hub_repo`), however it was named: `hf:ORG/NAME/...` or the snapshot's own path.
"""

from __future__ import annotations

import os
from pathlib import Path

from mmgauge.core.errors import UserError


def data_root(folder: Path) -> Path:
    """The folder files found under ``folder`` must stay in: the enclosing hub repository folder
    (``datasets--*`` with ``snapshots/``) when there is one, else ``folder`` itself."""
    return hub_repo(folder) or Path(os.path.abspath(folder))


def hub_repo(path: Path) -> Path | None:
    """The hub repository folder (``datasets--*`` with ``snapshots/``) ``path`` lies in as written, if any."""
    absolute = Path(os.path.abspath(path))
    for candidate in (absolute, *absolute.parents):
        if candidate.name.startswith("datasets--") and (candidate / "snapshots").is_dir():
            return candidate
    return None


def within_hub_repo(path: Path) -> Path:
    """``path`` unchanged; a UserError if it lies in a hub repository folder and resolves outside it.

    A file or folder named directly is otherwise the user's choice, links and all. In a hub cache it is
    not: the user chose the dataset, and its snapshot's links are only ever meant to lead to its blobs."""
    repo = hub_repo(path)
    return path if repo is None else confined(path, repo)


def loaded_path(path: Path) -> Path:
    """``path`` as a run loads and records it: absolute, links followed, except a link in a hub repository
    folder, which keeps its own name (the links among its folders are followed).

    A hub snapshot's ``en/dev-00000-of-00001.parquet`` links to ``blobs/<sha256>``, a name with no
    extension: the snapshot's name is the one its format is told from, its folder the one the rest of the
    dataset is in. Elsewhere a linked file stands for its target, beside the files that go with it."""
    absolute = path.absolute()
    if absolute.is_symlink() and hub_repo(absolute) is not None:
        return absolute.parent.resolve() / absolute.name
    return absolute.resolve()


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
