"""`load_run(path)`: a run folder's typed results and manifest, and its records as a pandas DataFrame."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from mmgauge.core.types import RunManifest, SampleRecord
from mmgauge.store.results import RunResults
from mmgauge.store.run_folder import RunFolder

if TYPE_CHECKING:
    import pandas as pd

#: The DataFrame's columns before the flattened sample fields (`meta.<name>`).
COLUMNS = ("benchmark", "sample_id", "round", "prompt", "text", "error", "answer", "method", "judge_reply",
           "detail", "target", "correct", "latency_s", "prompt_tokens", "completion_tokens", "cached")


@dataclass
class Run:
    """One run folder, read: `results` (typed; None if it was never scored), `manifest`, `records`."""

    path: Path
    manifest: RunManifest | None
    results: RunResults | None
    _folder: RunFolder = field(repr=False)
    _frame: Any = field(default=None, repr=False)

    @property
    def benchmarks(self) -> list[str]:
        return list(self.results.benchmarks) if self.results is not None else []

    def result(self, benchmark: str) -> BaseModel:
        """The result of `benchmark` as its own type (`MMEResult`, `MMBenchResult`, `M3GIAResult`, ...)."""
        from mmgauge.benchmarks.registry import benchmark_class

        if self.results is None:
            raise KeyError(f"{self.path} has no scored results")
        return self.results.result_as(benchmark, benchmark_class(benchmark).result_type)

    def partial(self) -> dict[str, str]:
        """The benchmarks not answered in full, with `answered/expected`."""
        if self.results is None:
            return {}
        return {name: b.coverage() for name, b in self.results.benchmarks.items() if b.partial}

    def record_list(self, benchmark: str | None = None) -> list[SampleRecord]:
        """The final records (after the judge pass) as typed objects."""
        return self._folder.records(benchmark)

    @property
    def records(self) -> pd.DataFrame:
        """One row per question and round: answer, how it was read, whether it is right, sample fields."""
        if self._frame is None:
            self._frame = _frame(self._folder)
        frame: pd.DataFrame = self._frame
        return frame


def load_run(path: str | Path) -> Run:
    """Read the run folder `path` (a one-line `UserError` when it is not one)."""
    folder = RunFolder(path).require()
    return Run(Path(path), folder.read_manifest(), folder.read_results(), folder)


def _frame(folder: RunFolder) -> pd.DataFrame:
    import pandas as pd

    dicts, _ = folder.record_dicts() if folder.has_records() else ([], True)
    rows = []
    for data in dicts:
        response = data.get("response") or {}
        extraction = data.get("extraction") or {}
        usage = response.get("usage") or {}
        row: dict[str, Any] = {
            "benchmark": data.get("benchmark"), "sample_id": data.get("sample_id"),
            "round": data.get("round", 0), "prompt": data.get("prompt"), "text": response.get("text"),
            "error": response.get("error"), "answer": extraction.get("answer"),
            "method": extraction.get("method"), "judge_reply": extraction.get("judge_reply"),
            "detail": extraction.get("detail"), "target": data.get("target"), "correct": data.get("correct"),
            "latency_s": response.get("latency_s"), "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"), "cached": response.get("cached", False),
        }
        for key, value in (data.get("metadata") or {}).items():
            row[f"meta.{key}"] = value
        rows.append(row)
    frame: pd.DataFrame = pd.DataFrame(rows, columns=None if rows else list(COLUMNS))
    return frame
