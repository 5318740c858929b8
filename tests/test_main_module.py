"""`python -m mmgauge` runs the same command line as the `mmgauge` script."""

from __future__ import annotations

import subprocess
import sys

from mmgauge.core.version import __version__


def test_python_dash_m_runs_the_command_line() -> None:
    version = subprocess.run([sys.executable, "-m", "mmgauge", "--version"], capture_output=True, text=True,
                             check=True)
    assert version.stdout.strip() == f"mmgauge {__version__}"
    listing = subprocess.run([sys.executable, "-m", "mmgauge", "export", "--help"], capture_output=True,
                             text=True, check=True)
    # The benchmarks' export commands come from their hooks, beside the table's own.
    assert {"mme", "mmbench", "table"} <= {line.split()[0] for line in listing.stdout.splitlines()
                                           if line.startswith("  ") and line.split()}
    unknown = subprocess.run([sys.executable, "-m", "mmgauge", "no-such-command"], capture_output=True,
                             text=True)
    assert unknown.returncode == 2
