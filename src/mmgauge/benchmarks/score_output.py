"""What a benchmark's `score` command prints for a result: its summary lines, or the result as JSON."""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel


def print_scores(bench: Any, result: BaseModel, *, json: bool) -> None:
    """`bench.summary(result)` as `label: value` lines, or `result` as indented JSON."""
    if json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    for label, value in bench.summary(result):
        sys.stdout.write(f"{label}: {value}\n")
