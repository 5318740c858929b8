"""MME questions from any layout: the release folder, VLMEvalKit's TSV, or lmms-lab's parquet/arrow files."""

from __future__ import annotations

from pathlib import Path

from mmgauge.benchmarks.mme.hf_table import load_hf_table
from mmgauge.benchmarks.mme.release import (
    MMEQuestion,
    load_release_folder,
    load_tsv,
    subtask_folders,
)
from mmgauge.core.errors import UserError
from mmgauge.datasources.tables import is_table_source


def is_hf_table(path: Path) -> bool:
    """Whether `path` is the lmms-lab/MME layout (parquet or arrow files) rather than a release folder."""
    if path.is_dir() and subtask_folders(path)[0]:
        return False
    return is_table_source(path)


def load_questions(path: Path) -> list[MMEQuestion]:
    if is_hf_table(path):
        return load_hf_table(path)
    if path.is_dir():
        return load_release_folder(path)
    if path.is_file() and path.suffix.lower() == ".tsv":
        return load_tsv(path)
    if not path.exists():
        raise UserError("no such file or folder", file=str(path))
    raise UserError("expected an MME release folder or a .tsv file (VLMEvalKit), or .parquet/.arrow files "
                    "(lmms-lab/MME)", file=str(path))
