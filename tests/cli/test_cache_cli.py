"""`mmgauge cache stats`: the cache folder follows XDG_CACHE_HOME; every part of it is shown with its size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mmgauge.core import paths


def test_cache_root_honours_xdg_cache_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert paths.cache_root() == tmp_path / "xdg" / "mmgauge"
    assert paths.embedded_cache_dir() == tmp_path / "xdg" / "mmgauge" / "embedded"
    for ignored in ("", "relative/cache"):  # the XDG spec: unset, empty or relative means ~/.cache
        monkeypatch.setenv("XDG_CACHE_HOME", ignored)
        assert paths.cache_root() == Path.home() / ".cache" / "mmgauge"


def test_cache_stats_shows_every_part_of_the_default_cache_folder(
    cli: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.undo()  # the real default_cache_path (conftest points it elsewhere), under our own XDG folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    from mmgauge.store.cache import default_cache_path

    assert default_cache_path() == tmp_path / "xdg" / "mmgauge" / "responses.sqlite"
    converted = paths.embedded_cache_dir() / "smollm2-135m-0123456789abcdef"
    converted.mkdir(parents=True)
    (converted / "model.safetensors").write_bytes(b"\0" * 2_500_000)
    run = cli("run", "--model", "mock", "--bench", "mme", "--limit", "2", "--out", tmp_path / "run")
    assert run.code == 0
    out = cli("cache", "stats").out
    folder = tmp_path / "xdg" / "mmgauge"
    assert f"cache {folder / 'responses.sqlite'}: 2 responses" in out
    assert f"cache folder {folder}: " in out
    assert "  embedded/: 2.5 MB  (the default model's text model" in out
    assert "  responses.sqlite: " in out


def test_judge_answers_are_counted_under_the_judge_model(cli: Any, tmp_path: Path) -> None:
    import asyncio

    from mmgauge.backends.spec import load_backend
    from mmgauge.extraction.judge import Judge
    from mmgauge.store.cache import ResponseCache

    path = tmp_path / "responses.sqlite"
    cache = ResponseCache(path)
    _, backend = load_backend("mock:B")
    asyncio.run(Judge(backend, cache).ask("Which option does this answer choose?"))
    cache.close()
    out = cli("cache", "stats", "--cache-path", path).out
    assert f"  {backend.fingerprint()}: 1" in out and "(unknown model)" not in out
