"""A plug-in backend built on the shared HTTP wrapper gets the `MODEL@URL|URL` grammar the built-in providers
have: its endpoints are split and checked before any request. The plug-in is found through its entry point
(a dist-info folder on PYTHONPATH) in a fresh `mmgauge run` process, as an installed package would be."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mmgauge.testing.server import FakeOpenAIServer

PLUGIN = '''
"""A provider speaking the OpenAI wire format under its own name, as a gateway plug-in would."""
from mmgauge.backends.openai import OpenAIBackend


class GatewayBackend(OpenAIBackend):
    provider = "gateway"
'''


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A folder holding the plug-in module and its dist-info, with the `mmgauge.backends` entry point."""
    site = tmp_path / "site"
    info = site / "mmgauge_gateway_test-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "mmgauge_gateway_test.py").write_text(textwrap.dedent(PLUGIN))
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mmgauge-gateway-test\nVersion: 0.1\n")
    entry = "gateway = mmgauge_gateway_test:GatewayBackend"  # not a built-in's name: those win
    (info / "entry_points.txt").write_text(f"[mmgauge.backends]\n{entry}\n")
    return site


def run(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "mmgauge.cli.main", "run", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_plugin_http_backend_splits_its_endpoints(site: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer() as one, FakeOpenAIServer() as two:
        done = run(site, "--model", f"gateway:m@{one.base_url}|{two.base_url}", "--bench", "mme",
                   "--limit", "8", "--out", str(tmp_path / "run"), "--no-cache", "--concurrency", "1")
        answered = (one.completed, two.completed)
    assert done.returncode == 0, done.stdout + done.stderr
    assert sum(answered) > 0 and min(answered) > 0  # both endpoints took requests
    assert "InvalidUrl" not in done.stdout + done.stderr


def test_a_plugin_spec_with_an_invalid_url_is_one_line_before_any_request(site: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        done = run(site, "--model", f"gateway:m@{server.base_url}|http://:80/v1", "--bench", "mme",
                   "--limit", "2", "--out", str(tmp_path / "run"), "--no-cache")
        sent = server.requests + server.models_requests
    assert done.returncode == 2, done.stdout + done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "http://:80/v1" in lines[0]
    assert sent == 0
