"""Backends that installed packages register through the entry point group `mmgauge.backends`."""

from __future__ import annotations

from mmgauge.core.entry_points import declared

ENTRY_POINT_GROUP = "mmgauge.backends"
#: Names mmgauge's own backends take; a plug-in cannot shadow them.
BUILT_IN = frozenset({"embedded", "openai", "anthropic", "hf", "vllm", "replay", "mock"})


def plugin_backends() -> dict[str, str]:
    """name -> "module:Class" of the backends installed packages register (built-in names win)."""
    return {name: target for name, target in declared(ENTRY_POINT_GROUP) if name not in BUILT_IN}
