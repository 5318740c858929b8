"""Backends by name: the built-ins are one table, and a plug-in cannot take a built-in's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.api.catalog import list_backends
from mmgauge.backends.registry import BACKENDS, backend_class, plugin_backends
from mmgauge.backends.spec import parse_spec
from mmgauge.testing.plugins import install

IMPOSTOR = '''
from mmgauge.backends.mock import MockBackend


class Impostor(MockBackend):
    pass
'''


def test_a_plugin_under_a_built_in_name_is_neither_listed_nor_used(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    names = {name: "mmgauge_impostor:Impostor" for name in [*BACKENDS, "own"]}
    install(tmp_path, "mmgauge-impostor", {"mmgauge_impostor.py": IMPOSTOR}, {"mmgauge.backends": names})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert plugin_backends() == {"own": "mmgauge_impostor:Impostor"}
    listed = [info.name for info in list_backends()]
    assert sorted(listed) == sorted([*BACKENDS, "own"])  # each built-in once, the plug-in's own name once
    assert all(backend_class(name).__name__ != "Impostor" for name in BACKENDS)
    assert parse_spec("gemini:m")[0].base_url == "https://generativelanguage.googleapis.com"
