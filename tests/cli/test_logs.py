"""Logging as Python users expect: `mmgauge.*` loggers, handlers only at the command line, -v/-q/--log-level,
and a DEBUG log in the run folder."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mmgauge
from mmgauge.cli.logs import RunLog, console_level
from mmgauge.testing.toy import write_toy_data

#: Where the mmgauge under test is, for the subprocesses.
SRC = Path(mmgauge.__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fresh_logging() -> Iterator[None]:
    """The command line configures the `mmgauge` logger; each test starts and ends without its handlers."""
    logger = logging.getLogger("mmgauge")
    before = (list(logger.handlers), logger.level)
    yield
    logger.handlers[:] = before[0]
    logger.setLevel(before[1])


def test_importing_the_library_configures_no_logging() -> None:
    code = ("import logging, mmgauge, mmgauge.api.evaluate, mmgauge.api.session, mmgauge.runner.run\n"
            "assert logging.getLogger('mmgauge').handlers == [] and logging.root.handlers == []\n"
            "assert logging.getLogger('mmgauge').level == logging.NOTSET\n")
    result = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(SRC)}, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_verbosity_counts_and_the_named_level() -> None:
    assert console_level() == logging.WARNING
    assert (console_level(1), console_level(2), console_level(3)) == (logging.INFO, logging.DEBUG,
                                                                      logging.DEBUG)
    assert (console_level(quiet=1), console_level(quiet=2)) == (logging.WARNING, logging.ERROR)
    assert console_level(2, level="error") == logging.ERROR


def test_a_run_appends_a_debug_log_to_its_folder(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 3)
    out = tmp_path / "o"
    for _ in range(2):
        assert cli("run", "-m", "mock", "-b", "toy", "--data", data, "--out", out, "--no-cache").code == 0
    log = (out / "mmgauge.log").read_text()
    assert log.count("DEBUG mmgauge.api.session: run configuration:") == 2
    assert "INFO mmgauge.status: loading model mock" in log


def test_a_log_file_can_be_elsewhere_or_none(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 2)
    args = ("run", "-m", "mock", "-b", "toy", "--data", data, "--no-cache")
    assert cli(*args, "--out", tmp_path / "a", "--log-file", tmp_path / "logs" / "a.log").code == 0
    assert "run configuration" in (tmp_path / "logs" / "a.log").read_text()
    assert not (tmp_path / "a" / "mmgauge.log").exists()
    assert cli(*args, "--out", tmp_path / "b", "--log-file", "none").code == 0
    assert not (tmp_path / "b" / "mmgauge.log").exists()


def test_a_refused_run_logs_why_and_the_console_keeps_one_line(cli: Any, tmp_path: Path) -> None:
    line = cli("run", "-m", "mock", "-b", "nosuch", "--out", tmp_path / "o").error_line()
    assert "unknown benchmark 'nosuch'" in line
    assert "run stopped: UserError" in (tmp_path / "o" / "mmgauge.log").read_text()


def test_records_before_the_folder_exists_wait_for_it_and_never_make_it(tmp_path: Path) -> None:
    handler = RunLog(tmp_path / "run" / "mmgauge.log")
    record = logging.LogRecord("mmgauge.x", logging.DEBUG, __file__, 1, "early %s", ("one",), None)
    handler.handle(record)
    assert not (tmp_path / "run").exists()
    (tmp_path / "run").mkdir()
    handler.handle(logging.LogRecord("mmgauge.x", logging.INFO, __file__, 2, "late", None, None))
    handler.close()
    lines = (tmp_path / "run" / "mmgauge.log").read_text().splitlines()
    assert [line.split(" ", 2)[2] for line in lines] == ["DEBUG mmgauge.x: early one", "INFO mmgauge.x: late"]


def test_quiet_silences_progress_but_not_errors(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 2)
    result = cli("-q", "run", "-m", "mock", "-b", "toy", "--data", data, "--out", tmp_path / "o",
                 "--no-cache")
    assert result.code == 0 and result.out == "" and result.err == ""
    assert "nosuch" in cli("run", "-q", "-m", "mock", "-b", "nosuch", "--out", tmp_path / "x").error_line()


def test_verbose_shows_the_librarys_records_on_stderr(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 2)
    args = ("-m", "mock", "-b", "toy", "--data", data, "--no-cache")
    quiet = cli("run", *args, "--out", tmp_path / "a")
    assert "info:" not in quiet.err and "debug:" not in quiet.err
    loud = cli("-vv", "run", *args, "--out", tmp_path / "b")
    assert "info: run into" in loud.err and "debug: run configuration" in loud.err
    # Status lines are the progress display's; the console log does not repeat them.
    assert "info: loading model" not in loud.err
    named = cli("run", "--log-level", "INFO", *args, "--out", tmp_path / "c")
    assert "info: run into" in named.err and "debug:" not in named.err
