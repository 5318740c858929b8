"""The version every stored model carries (`schema_version`), apart from the models (`core.types`), so that
results defined elsewhere can carry it without loading those."""

from __future__ import annotations

SCHEMA_VERSION = 1
