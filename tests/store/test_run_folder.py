"""RunFolder: the one owner of a run folder's files. Its lock, and a torn last line in every reader."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.store.lock import FolderBusy, FolderLock
from mmgauge.store.run_folder import RunFolder

HOLD = textwrap.dedent("""
    import sys, time
    from mmgauge.store.lock import FolderLock
    lock = FolderLock(__import__("pathlib").Path(sys.argv[1]), ["mmgauge", "run", "--out", "x"], "T0")
    lock.acquire()
    print("locked", flush=True)
    time.sleep(60)
""")


def hold(path: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def test_a_second_writer_stops_at_once_naming_the_holder(tmp_path: Path) -> None:
    holder = hold(tmp_path / ".lock")
    try:
        with pytest.raises(FolderBusy) as caught:
            FolderLock(tmp_path / ".lock", ["mmgauge", "run"], "T1").acquire()
        message = str(caught.value)
        assert f"pid {holder.pid}" in message and "mmgauge run --out x" in message and "since T0" in message
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_left_by_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    holder = hold(tmp_path / ".lock")
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    lock = FolderLock(tmp_path / ".lock", ["mmgauge", "run"], "T2")
    lock.acquire()
    try:
        assert lock.previous is not None and lock.previous["pid"] == holder.pid
    finally:
        lock.release()
    assert (tmp_path / ".lock").read_text() == ""  # released: the file no longer names a holder


def test_two_runs_into_one_folder(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "run"
    holder = hold(out / ".lock")
    try:
        line = cli("run", "--bench", "mme", "--model", "mock:Yes", "--out", out, "--no-cache").error_line()
        assert f"pid {holder.pid}" in line and "another mmgauge process" in line
        assert not (out / "samples.jsonl").exists()  # it stopped before asking anything
    finally:
        holder.kill()
        holder.wait()
    assert cli("run", "--bench", "mme", "--model", "mock:Yes", "--out", out, "--no-cache").code == 0


@pytest.fixture
def torn_run(tmp_path: Path) -> Path:
    """A finished run, then an interrupted one: a record cut in the middle at the end of the log."""
    out = tmp_path / "run"
    mmgauge.evaluate(model="mock:Yes", benchmarks=["mme", "mmbench"], out=out, cache=False, judge="none")
    log = out / "samples.jsonl"
    last = log.read_bytes().splitlines()[-1]
    with log.open("ab") as handle:
        handle.write(last[: len(last) // 2])
    return out


def test_every_reader_skips_a_torn_last_line(torn_run: Path, cli: Any, tmp_path: Path) -> None:
    folder = RunFolder(torn_run)
    assert len(folder.raw_records()) == len(folder.records())
    run = mmgauge.load_run(torn_run)
    assert len(run.records) == len(run.record_list()) == len(folder.records())
    assert mmgauge.score_mme(torn_run).perception.score == 500.0
    assert cli("score", "mme", torn_run, "--json").code == 0
    assert cli("export", "mme", torn_run, "--official", tmp_path / "official").code == 0
    data = RunFolder(torn_run / "sample-data" / "mmbench")
    tsv = next(data.path.glob("*.tsv"))
    exported = cli("export", "mmbench", tsv, torn_run, "--out", tmp_path / "sub.xlsx")
    assert exported.code == 0, exported.err
    assert cli("report", torn_run, "--out", tmp_path / "r.html").code == 0
    replayed = mmgauge.evaluate(model=f"replay:{torn_run}", benchmarks=["mme"], out=tmp_path / "again")
    assert replayed.benchmarks["mme"].failed == 0
    resumed = mmgauge.evaluate(model="mock:Yes", benchmarks=["mme", "mmbench"], out=torn_run, cache=False)
    assert resumed.benchmarks["mme"].requested == 0 and resumed.benchmarks["mmbench"].requested == 0


def test_results_document_is_typed_and_versioned(torn_run: Path) -> None:
    results = RunFolder(torn_run).read_results()
    assert results is not None and results.schema_version == 2
    raw = json.loads((torn_run / "results.json").read_text())
    assert raw["benchmarks"]["mme"]["status"] == "complete" and raw["benchmarks"]["mme"]["expected"] > 0
