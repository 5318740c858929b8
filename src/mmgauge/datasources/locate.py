"""`--data` by path, by VLMEvalKit dataset name, or by Hugging Face dataset id: found locally, never
downloaded.

`resolve_data(benchmark, spec)` returns a file or folder the benchmark's `load` takes:

- a path that exists (a release folder, a TSV/XLSX, a parquet or arrow file, a folder of them) is returned as
is, once a path in a hub cache is known to stay in its dataset's folder (`confine.within_hub_repo`);
- a VLMEvalKit dataset name (`MMBench_DEV_EN`, `CCBench`, `MME`, ...) is `<name>.tsv` in VLMEvalKit's data
  folder: `$LMUData` when that variable names an existing folder (VLMEvalKit's own rule), else `~/LMUData`;
  names are matched ignoring letter case, and a name of another benchmark's dataset is refused;
- `hf:ORG/NAME[@REVISION][/CONFIG[/SPLIT]]` is looked up in the local Hugging Face hub cache, then in the
  `datasets` library's arrow cache (see `hf_cache`).

When nothing is found the `UserError` is one line naming every place that was looked at.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Final

from mmgauge.core.errors import UserError
from mmgauge.datasources.confine import within_hub_repo
from mmgauge.datasources.hf_cache import (
    Search,
    environment,
    find_in_datasets_cache,
    find_in_hub,
    parse_hf_spec,
)

#: VLMEvalKit's dataset names (the TSV file stems in LMUData), per benchmark.
VLMEVALKIT_NAMES: Final[dict[str, tuple[str, ...]]] = {
    "mmbench": (
        "MMBench_DEV_EN", "MMBench_TEST_EN", "MMBench_DEV_CN", "MMBench_TEST_CN", "MMBench", "MMBench_CN",
        "CCBench", "MMBench_DEV_EN_V11", "MMBench_TEST_EN_V11", "MMBench_DEV_CN_V11", "MMBench_TEST_CN_V11",
        "MMBench_V11", "MMBench_CN_V11",
    ),
    "mme": ("MME",),
    "m3gia": (),
}
_FILE_SUFFIXES: Final = (".tsv", ".xlsx", ".xls", ".csv", ".jsonl", ".json", ".parquet", ".arrow", ".txt")


def lmudata_root(env: Mapping[str, str]) -> tuple[Path, str]:
    """VLMEvalKit's data folder and why: `$LMUData` if it is an existing folder, else `~/LMUData`."""
    configured = env.get("LMUData")
    if configured and Path(configured).expanduser().is_dir():
        return Path(configured).expanduser(), "LMUData"
    note = f"default; LMUData={configured} is not a folder" if configured else "default"
    return Path.home() / "LMUData", note


def resolve_data(benchmark: str, spec: str, *, env: Mapping[str, str] | None = None) -> Path:
    """The local file or folder `spec` names for `benchmark` (see the module docstring)."""
    variables = environment(env)
    text = spec.strip()
    if not text:
        raise UserError("empty --data value", field="--data")
    if text.lower().startswith("hf:"):
        return _from_hugging_face(benchmark, text[3:], variables)
    path = Path(text).expanduser()
    if path.exists():
        return within_hub_repo(path)
    if benchmark == "m3gia" and text == "hf":
        return path  # the M3GIA loader's own word for the default hub cache
    if _is_name(text):
        return _from_lmudata(benchmark, text, path, variables)
    raise UserError("no such file or folder", file=str(path), field="--data")


def _is_name(text: str) -> bool:
    return "/" not in text and "\\" not in text and Path(text).suffix.lower() not in _FILE_SUFFIXES


def _from_lmudata(benchmark: str, name: str, path: Path, env: Mapping[str, str]) -> Path:
    known = {n.lower(): n for names in VLMEVALKIT_NAMES.values() for n in names}
    canonical = known.get(name.lower(), name)
    owner = next((b for b, names in VLMEVALKIT_NAMES.items() if canonical in names), None)
    if owner is not None and owner != benchmark:
        raise UserError(f"'{canonical}' is a VLMEvalKit {owner} dataset, not {benchmark}", field="--data")
    root, origin = lmudata_root(env)
    candidate = root / f"{canonical}.tsv"
    if candidate.is_file():
        return candidate
    hint = ""
    if owner is None:
        names = ", ".join(VLMEVALKIT_NAMES.get(benchmark, ())) or "none"
        hint = f"; VLMEvalKit names for {benchmark}: {names}"
    raise UserError(f"'{name}' not found: not a file or folder ({path.resolve()}), not in VLMEvalKit's data "
                    f"folder ({candidate}, {origin}); nothing is downloaded{hint}", field="--data")


def _from_hugging_face(benchmark: str, text: str, env: Mapping[str, str]) -> Path:
    spec = parse_hf_spec(text)
    search = Search()
    whole_repo = benchmark == "m3gia"  # the M3GIA loader takes the snapshot with all six languages
    found = find_in_hub(spec, env, search, one_split=not whole_repo)
    if found is None and not whole_repo:
        found = find_in_datasets_cache(spec, env, search)
    if found is not None:
        return within_hub_repo(found)
    where = "; ".join(search.looked)
    revision = f" at revision {spec.revision}" if spec.revision else ""
    raise UserError(f"hf:{spec.repo}{revision} is not in the local Hugging Face caches (nothing is "
                    f"downloaded); looked in: {where}", field="--data")
