"""`--log-level` choices, apart from `logs.py` so that mounting the command tree does not import `logging`."""

from __future__ import annotations

from enum import Enum


class LogLevel(str, Enum):
    debug = "debug"
    info = "info"
    warning = "warning"
    error = "error"
    critical = "critical"
