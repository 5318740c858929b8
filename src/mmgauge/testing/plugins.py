"""Plug-in packages for tests, laid out in a folder as pip installs them (the modules plus a `.dist-info` with
METADATA and entry_points.txt), and the `mmgauge` command run in a fresh process that has that folder on its
path: discovery through real entry points, and imports that happen only in that process."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def install(site: Path, distribution: str, files: Mapping[str, str],
            entry_points: Mapping[str, Mapping[str, str]]) -> Path:
    """Write `files` (relative path -> text) under `site` and the distribution's metadata; returns `site`."""
    written = []
    for relative, text in files.items():
        path = site / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(relative)
    info = site / f"{distribution.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    metadata = {
        "METADATA": f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n",
        "entry_points.txt": "".join(
            f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in entries.items()) + "\n"
            for group, entries in entry_points.items()),
        "INSTALLER": "pip\n",
    }
    for name, text in metadata.items():
        (info / name).write_text(text, encoding="utf-8")
    record = [*written, *(f"{info.name}/{name}" for name in (*metadata, "RECORD"))]
    (info / "RECORD").write_text("".join(f"{path},,\n" for path in record), encoding="utf-8")
    return site


def run_cli(site: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """`mmgauge ARGS` in a new interpreter whose path starts with `site` (as a site-packages folder would)."""
    path = os.pathsep.join(part for part in (str(site), os.environ.get("PYTHONPATH", "")) if part)
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "mmgauge.cli.main", *(str(a) for a in args)], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
