"""Entry points are read once while the import path stays as it was, and again as soon as it changes: a
package installed into a folder on the path, a folder added to it or taken off."""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mmgauge
import mmgauge.core.entry_points as entry_points_module
from mmgauge.backends.registry import plugin_backends
from mmgauge.benchmarks.registry import all_benchmarks
from mmgauge.core.entry_points import declared
from mmgauge.testing.plugins import install

GROUP = "mmgauge.backends"


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the installed distributions are scanned, whoever asks importlib to."""
    counted: list[int] = []
    real = importlib.metadata.distributions

    def counting(**arguments: Any) -> Any:
        counted.append(1)
        return real(**arguments)

    monkeypatch.setattr(importlib.metadata, "distributions", counting)
    entry_points_module._all.cache_clear()
    yield counted
    entry_points_module._all.cache_clear()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "site"
    folder.mkdir()
    sys.path.insert(0, str(folder))
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))


def _package(site: Path, name: str) -> None:
    install(site, f"mmgauge-{name}", {f"mmgauge_{name}.py": ""}, {GROUP: {name: f"mmgauge_{name}:Backend"}})


def test_the_installed_packages_are_read_once_while_the_path_stays_as_it_was(scans: list[int]) -> None:
    first = declared("mmgauge.benchmarks")
    assert ("mme", "mmgauge.benchmarks.mme.bench:MMEBenchmark") in first
    assert declared("mmgauge.benchmarks") == first
    declared(GROUP)
    all_benchmarks()
    plugin_backends()
    assert len(scans) == 1


def test_a_package_installed_into_a_folder_on_the_path_is_found_at_once(scans: list[int], site: Path) -> None:
    assert declared(GROUP) == []
    _package(site, "first")
    assert declared(GROUP) == [("first", "mmgauge_first:Backend")]
    # A second package within the same tick of the file system's clock: the folder's link count changed.
    _package(site, "second")
    both = [("first", "mmgauge_first:Backend"), ("second", "mmgauge_second:Backend")]
    assert sorted(declared(GROUP)) == both
    assert plugin_backends() == {"first": "mmgauge_first:Backend", "second": "mmgauge_second:Backend"}
    assert len(scans) == 3


def test_a_folder_taken_off_the_path_takes_its_packages_with_it(scans: list[int], tmp_path: Path) -> None:
    folder = tmp_path / "elsewhere"
    _package(folder, "third")
    assert declared(GROUP) == []
    sys.path.insert(0, str(folder))
    try:
        assert declared(GROUP) == [("third", "mmgauge_third:Backend")]
    finally:
        sys.path.remove(str(folder))
    assert declared(GROUP) == []
    assert len(scans) == 3


def test_a_whole_run_reads_the_installed_packages_once(scans: list[int], tmp_path: Path) -> None:
    results = mmgauge.evaluate(model="mock:yes", benchmarks=["mme", "mmbench"], out=tmp_path / "run",
                               cache=False)
    assert results.benchmarks["mme"].records > 0 and results.benchmarks["mmbench"].records > 0
    mmgauge.write_report([tmp_path / "run"], tmp_path / "report.html")
    assert len(scans) == 1
