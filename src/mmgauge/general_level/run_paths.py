"""Which results paths are run folders: asked of every path `mmgauge score level` is given, so it loads
nothing but `RunFolder` (the mapping and its models in `runs` are loaded only when a run is read)."""

from __future__ import annotations

from pathlib import Path

from mmgauge.store.run_folder import RunFolder


def scored_run_folder(path: Path) -> RunFolder | None:
    """The run folder `path` is (or whose results file it names), if it holds scored results."""
    folder = RunFolder.results_file_of(path) or RunFolder(path)
    return folder if folder.has_results() else None


def is_run_folder(path: Path) -> bool:
    """A folder written by ``mmgauge run`` with scored results (or the results file inside one)."""
    return scored_run_folder(path) is not None
