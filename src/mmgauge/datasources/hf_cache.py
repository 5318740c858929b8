"""Finding a Hugging Face dataset in the local caches, never downloading it.

Two caches are searched, with the locations `huggingface_hub` and `datasets` use:

- the hub cache (`HF_HUB_CACHE`, else the legacy `HUGGINGFACE_HUB_CACHE`, else `$HF_HOME/hub`, with `HF_HOME`
  defaulting to `$XDG_CACHE_HOME/huggingface` or `~/.cache/huggingface`): `datasets--ORG--NAME/` holding
  `refs/<branch>` (a file naming a commit) and `snapshots/<commit>/<files as in the repository>`;
- the `datasets` library's arrow cache (`HF_DATASETS_CACHE`, else `$HF_HOME/datasets`):
  `ORG___<name>/<config>/<version>/<hash>/<name>-<split>[-NNNNN-of-NNNNN].arrow`, where `<name>` is the
  repository name in snake case (`MMBench` -> `mm_bench`).

A dataset spec is `ORG/NAME[@REVISION][/CONFIG[/SPLIT]]`. In a snapshot the trailing part may also be a path
inside the repository. Where the selection holds more than one split, the error lists them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mmgauge.core.errors import UserError
from mmgauge.datasources.confine import confined
from mmgauge.datasources.tables import is_data_file, split_key

_REPO_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
#: The most bytes a `refs/<branch>` file may hold (it holds a 40-character commit hash).
_REF_LIMIT = 256


@dataclass(frozen=True)
class HFSpec:
    org: str
    name: str
    revision: str | None
    selection: tuple[str, ...]

    @property
    def repo(self) -> str:
        return f"{self.org}/{self.name}"


@dataclass
class Search:
    """Where a lookup looked, for the one-line error when nothing is found."""

    looked: list[str] = field(default_factory=list)


def parse_hf_spec(text: str) -> HFSpec:
    """`ORG/NAME[@REVISION][/CONFIG[/SPLIT]]` (the part after `hf:`)."""
    parts = [part for part in text.strip().strip("/").split("/")]
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise UserError(f"'hf:{text}' is not hf:ORG/NAME[@REVISION][/CONFIG[/SPLIT]]", field="--data")
    name, _, revision = parts[1].partition("@")
    for piece in (parts[0], name):
        if not _REPO_PART.match(piece):
            raise UserError(f"'{piece}' is not a valid Hugging Face organisation or dataset name",
                            field="--data")
    selection = tuple(p for p in parts[2:] if p)
    if any(part in (".", "..") for part in selection):  # a path in the dataset, never above it
        raise UserError(f"'hf:{text}': '.' and '..' name no config, split or file of a dataset",
                        field="--data")
    return HFSpec(parts[0], name, revision or None, selection)


def hf_home(env: Mapping[str, str]) -> Path:
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser()
    base = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "huggingface"


def hub_cache(env: Mapping[str, str]) -> tuple[Path, str]:
    """The hub cache folder and the setting it comes from."""
    for variable in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(variable):
            return Path(env[variable]).expanduser(), variable
    return hf_home(env) / "hub", "HF_HOME" if env.get("HF_HOME") else "default"


def datasets_cache(env: Mapping[str, str]) -> tuple[Path, str]:
    if env.get("HF_DATASETS_CACHE"):
        return Path(env["HF_DATASETS_CACHE"]).expanduser(), "HF_DATASETS_CACHE"
    return hf_home(env) / "datasets", "HF_HOME" if env.get("HF_HOME") else "default"


def snake_case(name: str) -> str:
    """The `datasets` library's camel-to-snake conversion of a repository name (`MMBench` -> `mm_bench`)."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z\d])([A-Z])", r"\1_\2", name)
    return name.replace("-", "_").lower()


def _child(folder: Path, name: str) -> Path | None:
    """`folder/name`, or the one entry whose name equals it ignoring letter case."""
    exact = folder / name
    if exact.exists():
        return exact
    if not folder.is_dir():
        return None
    found = [entry for entry in folder.iterdir() if entry.name.lower() == name.lower()]
    return found[0] if len(found) == 1 else None


def find_in_hub(
    spec: HFSpec, env: Mapping[str, str], search: Search, *, one_split: bool = True
) -> Path | None:
    """The selected split (file or folder) of `spec` in the hub cache, or None if it is not there.

    With `one_split=False` the snapshot folder (or the path the selection names in it) is returned as it is.
    """
    cache, origin = hub_cache(env)
    repo = _child(cache, f"datasets--{spec.org}--{spec.name}")
    search.looked.append(f"{cache / f'datasets--{spec.org}--{spec.name}'} ({origin})")
    if repo is None:
        return None
    snapshot = _snapshot(repo, spec.revision or "main")
    if snapshot is None:
        search.looked[-1] += f" [no snapshot for revision {spec.revision or 'main'}]"
        return None
    if not one_split:
        inside = snapshot.joinpath(*spec.selection)
        if not inside.exists():
            raise UserError(f"hf:{spec.repo} has no '{'/'.join(spec.selection)}'", file=str(snapshot))
        return inside
    return select(snapshot, spec.selection, f"hf:{spec.repo}")


def _snapshot(repo: Path, revision: str) -> Path | None:
    if not _is_folder_name(revision):  # `@..` would name the repository folder itself
        return None
    ref = repo / "refs" / revision
    if ref.is_file():
        folder = repo / "snapshots" / _commit_in(ref, repo)
        if folder.is_dir():
            return folder
    snapshots = repo / "snapshots"
    if (snapshots / revision).is_dir():
        return snapshots / revision
    if len(revision) >= 7 and snapshots.is_dir():
        matches = [p for p in snapshots.iterdir() if p.is_dir() and p.name.startswith(revision)]
        if len(matches) == 1:
            return matches[0]
    if revision == "main" and snapshots.is_dir():
        only = [p for p in snapshots.iterdir() if p.is_dir()]
        if len(only) == 1:  # a cache copied without its refs/ folder
            return only[0]
    return None


def _commit_in(ref: Path, repo: Path) -> str:
    """The commit a `refs/<branch>` file names: one folder name in `snapshots/`, else a UserError.

    The file is read as a name, never followed as a path: `../../x` in it would lead out of the dataset."""
    try:
        with confined(ref, repo).open("rb") as handle:
            data = handle.read(_REF_LIMIT + 1)  # a ref is 40 characters; a huge file is not one
    except OSError as error:
        raise UserError(f"cannot read: {error.strerror or error}", file=str(ref)) from None
    try:
        commit = data.decode("ascii").strip()
    except UnicodeDecodeError:
        commit = None
    if commit is None or len(data) > _REF_LIMIT or not _is_folder_name(commit):
        shown = "binary bytes" if commit is None else repr(commit[:60])
        raise UserError(f"holds {shown}, not a commit naming a folder in {repo / 'snapshots'}; refusing to "
                        "follow it", file=str(ref))
    return commit


def _is_folder_name(text: str) -> bool:
    """Whether `text` is one plain folder name (no separator, not `.` or `..`: it starts with a letter or
    digit)."""
    return bool(_REPO_PART.match(text))


def find_in_datasets_cache(spec: HFSpec, env: Mapping[str, str], search: Search) -> Path | None:
    """The selected split's arrow files (their folder, or one shard) in the `datasets` cache, or None."""
    cache, origin = datasets_cache(env)
    wanted = f"{spec.org}___{snake_case(spec.name)}"
    search.looked.append(f"{cache / wanted} ({'HF_DATASETS_CACHE' if origin != 'default' else origin})")
    if spec.revision is not None:
        search.looked[-1] += " [skipped: the arrow cache does not record revisions]"
        return None
    base = _child(cache, wanted)
    if base is None or not base.is_dir():
        return None
    configs = sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
    config = spec.selection[0] if spec.selection else ("default" if "default" in configs else None)
    if config is None:
        if len(configs) != 1:
            choices = ", ".join(f"hf:{spec.repo}/{c}" for c in configs) or "none"
            raise UserError(f"hf:{spec.repo} has several configs in the datasets cache; choose one: "
                            f"{choices}", file=str(base))
        config = configs[0]
    folder = _child(base, config)
    if folder is None:
        return None
    builds = sorted({f.parent for f in folder.rglob("*.arrow") if is_data_file(f)})
    if not builds:
        return None
    if len(builds) > 1:
        names = ", ".join(str(b.relative_to(folder)) for b in builds)
        raise UserError(f"several cached builds of hf:{spec.repo}/{config} ({names}); pass one folder as "
                        "--data", file=str(folder))
    split = spec.selection[1:2]
    return select(builds[0], ("default", *split) if split else (), f"hf:{spec.repo}/{config}",
                  arrow_prefix=snake_case(spec.name))


def select(root: Path, selection: tuple[str, ...], label: str, *, arrow_prefix: str | None = None) -> Path:
    """The file or folder under `root` that `selection` (a path, or CONFIG[/SPLIT]) names."""
    if selection:
        direct = root.joinpath(*selection)
        if direct.is_file() or (direct.is_dir() and len(_splits(direct, arrow_prefix)) == 1):
            return direct
    splits = _splits(root, arrow_prefix)
    chosen = {key: files for key, files in splits.items() if _matches(key, selection)}
    if len(chosen) == 1:
        files = next(iter(chosen.values()))
        return _one_path(files)
    if not chosen:
        wanted = "/".join(selection)
        have = ", ".join(f"{label}/{c}/{s}" if c != "default" else f"{label}/{s}" for c, s in sorted(splits))
        raise UserError(f"{label} has no '{wanted}' (has: {have or 'no .parquet or .arrow files'})",
                        file=str(root))
    choices = ", ".join(f"{label}/{c}/{s}" if c != "default" else f"{label}/{s}" for c, s in sorted(chosen))
    raise UserError(f"{label} holds several splits; choose one: {choices}", file=str(root))


def _matches(key: tuple[str, str], selection: tuple[str, ...]) -> bool:
    """Whether CONFIG[/SPLIT] selects (config, split); a lone SPLIT selects it in the default config."""
    config, split = (part.lower() for part in key)
    wanted = [part.lower() for part in selection]
    if not wanted:
        return True
    if len(wanted) == 1:
        return config == wanted[0] or (config == "default" and split == wanted[0])
    return config == wanted[0] and split == wanted[1]


def _one_path(files: list[Path]) -> Path:
    """The files' folder when it holds no other data, else the first file (which stands for the split)."""
    folder = files[0].parent
    others = [p for p in folder.iterdir() if p.is_file() and is_data_file(p) and p not in files]
    return folder if not others and len(files) > 1 else files[0]


def _splits(root: Path, arrow_prefix: str | None) -> dict[tuple[str, str], list[Path]]:
    """(config, split) -> files, from the paths as the hub and the datasets cache lay them out."""
    found: dict[tuple[str, str], list[Path]] = {}
    for file in sorted(root.rglob("*")):
        relative = file.relative_to(root)
        if not file.is_file() or not is_data_file(file) or any(p.startswith(".") for p in relative.parts):
            continue
        folders = relative.parts[:-1]
        _, name = split_key(file)
        if arrow_prefix is not None and name.startswith(arrow_prefix + "-"):
            name = name[len(arrow_prefix) + 1:]
        if re.fullmatch(r"\d{4}", name) and folders:  # refs/convert/parquet: <config>/<split>/0000.parquet
            config, name = (folders[-2] if len(folders) > 1 else "default"), folders[-1]
        elif folders and folders[0] != "data":
            config = folders[0]
        elif len(folders) > 1:
            config = folders[1]
        else:
            config = "default"
        found.setdefault((config, name), []).append(file)
    return found


def environment(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env
