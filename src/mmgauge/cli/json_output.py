"""What every ``--json`` option prints (`core/json_output.py`, below the benchmarks, whose own `score`
commands print the same way); the command line's modules import it from here."""

from __future__ import annotations

from mmgauge.core.json_output import finite_or_null, print_json

__all__ = ["finite_or_null", "print_json"]
