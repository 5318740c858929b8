"""The run manifest: created on a run's first start, checked and updated on every resume.

Every command that writes into the folder is appended to `invocations` with its time, status and counts,
so the manifest tells the folder's whole history, not only how it began.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import json
import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any

from mmgauge.core.errors import UserError
from mmgauge.core.types import (
    DatasetEntry,
    GenerationConfig,
    GenerationStats,
    HostInfo,
    Invocation,
    ModelSpec,
    RunManifest,
)
from mmgauge.core.version import __version__
from mmgauge.store.run_folder import RunFolder


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


#: Libraries whose version can change an answer or a score; recorded when installed, never imported here.
TRACKED_LIBRARIES = (
    "pydantic",
    "numpy",
    "pandas",
    "pyarrow",
    "pillow",
    "aiohttp",
    "torch",
    "transformers",
    "accelerate",
    "gguf",
    "rapidocr",
    "onnxruntime",
    "vllm",
    "ray",
    "semopy",
    "scipy",
    "matplotlib",
)


def library_versions() -> dict[str, str]:
    versions = {}
    for name in TRACKED_LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def host_info() -> HostInfo:
    return HostInfo(
        hostname=socket.gethostname(), platform=platform.platform(), python=sys.version.split()[0]
    )


class ManifestStore:
    """Keeps a run folder's manifest. A resume must be the same model, settings and data as before."""

    def __init__(self, manifest: RunManifest, folder: RunFolder) -> None:
        self.manifest = manifest
        self.folder = folder

    @classmethod
    def open(
        cls,
        out_dir: Path | RunFolder,
        *,
        model: ModelSpec,
        model_fingerprint: str,
        generation: GenerationConfig,
        judge: ModelSpec | None,
        datasets: list[DatasetEntry],
        seeds: dict[str, int | None],
        command: list[str],
        backend: dict[str, Any] | None = None,
        executor: dict[str, Any] | None = None,
        judge_backend: dict[str, Any] | None = None,
        config: dict[str, Any] | None = None,
    ) -> ManifestStore:
        folder = out_dir if isinstance(out_dir, RunFolder) else RunFolder(out_dir)
        fresh = RunManifest(
            toolkit_version=__version__,
            model=model,
            model_fingerprint=model_fingerprint,
            backend=backend or {},
            executor=executor or {},
            libraries=library_versions(),
            generation=generation,
            judge=judge,
            judge_backend=judge_backend or {},
            datasets=datasets,
            seeds=seeds,
            started_at=now(),
            updated_at=now(),
            host=host_info(),
            command=command,
            config=config,
        )
        if not folder.has_manifest():
            folder.path.mkdir(parents=True, exist_ok=True)
            return cls(fresh, folder)
        path = Path(folder.describe_file("manifest"))
        try:
            old = folder.read_manifest()
        except UserError:
            raise UserError(
                "is not a readable mmgauge run manifest; choose another --out", file=str(path)
            ) from None
        assert old is not None
        _check_compatible(old, fresh, path)
        merged = {d.benchmark: d for d in old.datasets}
        merged.update({d.benchmark: d for d in datasets})
        resumed = old.model_copy(
            update={
                "datasets": list(merged.values()),
                "judge": judge,
                "judge_backend": fresh.judge_backend,
                "updated_at": now(),
                "finished_at": None,
                "toolkit_version": __version__,
                "model": model,
                "backend": fresh.backend,
                "executor": fresh.executor,
                "libraries": fresh.libraries,
                "config": config,
            }
        )
        return cls(resumed, folder)

    def save(self) -> None:
        self.folder.write_manifest(self.manifest)

    def begin(self, command: list[str], benchmarks: list[str], limit: int | None) -> None:
        """Record this command as running (an earlier one still marked running died without a word)."""
        history = [
            entry.model_copy(update={"status": "killed"}) if entry.status == "running" else entry
            for entry in self.manifest.invocations
        ]
        history.append(Invocation(
            command=command, started_at=now(), toolkit_version=__version__, host=socket.gethostname(),
            pid=os.getpid(), benchmarks=benchmarks, limit=limit,
        ))
        self.manifest = self.manifest.model_copy(update={"invocations": history})
        self.save()

    def end(self, status: str, counts: dict[str, dict[str, int]],
            generation: GenerationStats | None = None) -> None:
        """Close this command's entry with its status, per-benchmark counts and the model's throughput."""
        if not self.manifest.invocations:
            return
        history = list(self.manifest.invocations)
        update = {"status": status, "finished_at": now(), "counts": counts, "generation": generation}
        history[-1] = history[-1].model_copy(update=update)
        self.manifest = self.manifest.model_copy(update={"invocations": history, "updated_at": now()})
        self.save()

    def touch(self) -> None:
        self.manifest = self.manifest.model_copy(update={"updated_at": now()})
        self.save()

    def finish(self) -> None:
        stamp = now()
        self.manifest = self.manifest.model_copy(update={"updated_at": stamp, "finished_at": stamp})
        self.save()


def _check_compatible(old: RunManifest, new: RunManifest, path: Path) -> None:
    if old.model_fingerprint != new.model_fingerprint:
        raise UserError(
            f"holds a run of model '{old.model.label()}' ({old.model_fingerprint}); this run is "
            f"'{new.model.label()}' ({new.model_fingerprint}): choose another --out",
            file=str(path),
        )
    if old.generation != new.generation:
        diff = {
            k: (v, new.generation.model_dump()[k])
            for k, v in old.generation.model_dump().items()
            if new.generation.model_dump()[k] != v
        }
        raise UserError(
            f"holds a run with other generation settings {json.dumps(diff)}: choose another --out",
            file=str(path),
        )
    before = {d.benchmark: d for d in old.datasets}
    for entry in new.datasets:
        prior = before.get(entry.benchmark)
        if prior is not None and (prior.fingerprint != entry.fingerprint or prior.options != entry.options):
            raise UserError(
                f"holds a '{entry.benchmark}' run on other data or options ({prior.data}); "
                "choose another --out",
                file=str(path),
            )
