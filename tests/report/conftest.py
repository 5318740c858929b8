"""Report test fixtures: real runs of the mock model on the built-in samples, and headless chromium (a DOM
dump and a screenshot, or driven over the DevTools protocol to type, pick filters and read the page)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--enable-logging=stderr", "--v=0",
)
#: Answers and dataset text an attacker could control; each tries to leave a mark if it ever runs.
PAYLOADS = (
    '<script>document.title="PWNED";document.body.setAttribute("data-pwned","1")</script>',
    "<img src=x onerror=\"document.title='PWNED';document.body.setAttribute('data-pwned','2')\">",
    "</script><script>document.body.setAttribute('data-pwned','3')</script>",
    "\"'><svg onload=\"document.body.setAttribute('data-pwned','4')\"><b>bold</b>",
    '<!-- <iframe srcdoc="<script>parent.document.title=1</script>"> $x^2$ {{7*7}} =1+1 \u2028',
)


def make_run(out: Path, model: str, bench: str | None = None) -> Path:
    from mmgauge.cli.main import main

    args = ["run", "--model", model, "--out", str(out), "--no-cache"]
    if bench is not None:
        args += ["--bench", bench]
    try:
        main(args)
    except SystemExit as stop:
        assert not stop.code, f"mmgauge run failed with status {stop.code}"
    assert (out / "results.json").exists()
    return out


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two real runs over every registered benchmark's sample: an always-yes and an always-A model."""
    base = tmp_path_factory.mktemp("runs")
    return make_run(base / "yes", "mock:Yes"), make_run(base / "letter", "mock:A")


def _rewrite_jsonl(path: Path, change: Any) -> None:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for number, record in enumerate(lines):
        change(number, record)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run whose answers, model name, prompts, categories, ids and errors are all HTML/script payloads."""
    out = make_run(tmp_path_factory.mktemp("hostile") / "run", "mock:" + " ".join(PAYLOADS))

    def poison(number: int, record: dict[str, Any]) -> None:
        payload = PAYLOADS[number % len(PAYLOADS)]
        record["prompt"] = payload + "\n" + record["prompt"]
        if record["benchmark"] == "mmbench":
            record["metadata"]["category"] = payload
            record["sample_id"] = f"{record['sample_id']}{payload}"
        if number % 7 == 3:
            record["response"]["error"] = "HTTP 500: " + payload
            record["response"]["text"] = None
            record["extraction"] = None
            record["correct"] = None

    _rewrite_jsonl(out / "scored.jsonl", poison)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    mmbench = results["benchmarks"]["mmbench"]["result"]
    mmbench["category"] = {payload: 0.5 for payload in PAYLOADS}
    results["benchmarks"]["evil" + PAYLOADS[3]] = {
        "benchmark": "evil", "samples": 1, "headline": [[PAYLOADS[0], PAYLOADS[1]]],
        "result": {PAYLOADS[2]: 1},
    }
    (out / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return out


@dataclass
class Browsed:
    dom: str
    log: str
    screenshot: Path


def _install_chromium() -> str | None:
    """Install Debian's chromium when allowed (root, or CI with passwordless sudo); the reason if not."""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    sudo = [] if root else ["sudo", "-n"]
    if not root and (not os.environ.get("CI") or shutil.which("sudo") is None):
        return "chromium is not installed and this is neither root nor CI with sudo: apt-get install chromium"
    if shutil.which("apt-get") is None:
        return "chromium is not installed and there is no apt-get to install it"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*sudo, "apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    done = subprocess.run(install, env=env, capture_output=True, timeout=1800)
    if done.returncode != 0:  # a fresh image has no package lists yet
        subprocess.run([*sudo, "apt-get", "update"], env=env, capture_output=True, timeout=900)
        done = subprocess.run(install, env=env, capture_output=True, timeout=1800)
    if done.returncode != 0:
        return "apt-get install chromium failed: " + done.stderr.decode(errors="replace")[-300:]
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        reason = _install_chromium()
        if reason is not None:
            pytest.skip(reason)
        path = shutil.which("chromium") or "/usr/bin/chromium"
    return path


def _browse(chromium: str, page: Path, work: Path, height: int) -> Browsed:
    """Open `page` twice in a fresh profile: once for the DOM after scripts ran, once for a screenshot."""
    shot = work / "screenshot.png"
    logs: list[str] = []
    dom = ""
    size = f"--window-size=1300,{height}"
    for name, extra in (("dom", ["--dump-dom"]), ("shot", [f"--screenshot={shot}", size])):
        done = subprocess.run(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={work / f'profile-{name}'}", *extra, page.as_uri()],
            capture_output=True, timeout=180,
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
        logs.append(done.stderr.decode(errors="replace"))
        if name == "dom":
            dom = done.stdout.decode("utf-8", errors="replace")
    return Browsed(dom=dom, log="\n".join(logs), screenshot=shot)


@pytest.fixture
def open_page(chromium: str, tmp_path: Path) -> Any:
    """`open_page(page, height=6000) -> Browsed`."""

    def run(page: Path, height: int = 6000) -> Browsed:
        return _browse(chromium, page, tmp_path, height)

    return run


@pytest.fixture(scope="session")
def payloads() -> tuple[str, ...]:
    return PAYLOADS


@dataclass
class DevTools:
    """One headless chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`).

    The browser reads commands on its fd 3 and writes replies and events on fd 4, each a JSON object ended by
    a NUL byte: no port, no websocket library. `open` loads a page in a fresh tab; `problems` collects what
    the page reported: uncaught exceptions, any console call, and log entries at warning or error level
    (CSP violations, failed loads).
    """

    process: subprocess.Popen[bytes]
    to_browser: int
    from_browser: int
    session: str = ""
    problems: list[str] = field(default_factory=list)
    _next: int = 0
    _buffer: bytes = b""

    @classmethod
    def start(cls, chromium: str, work: Path) -> DevTools:
        commands_r, commands_w = os.pipe()
        replies_r, replies_w = os.pipe()
        # The shell puts the pipe ends on fds 3 and 4, where chromium looks for them, and becomes chromium
        # (bash: dash refuses fd numbers above 9, and under pytest the pipes get higher ones).
        script = f'exec "$0" "$@" 3<&{commands_r} 4>&{replies_w}'
        with (work / "chromium.log").open("wb") as log:
            process = subprocess.Popen(
                [shutil.which("bash") or "/bin/bash", "-c", script, chromium, *CHROMIUM_FLAGS,
                 "--remote-debugging-pipe", f"--user-data-dir={work / 'profile-devtools'}", "about:blank"],
                pass_fds=(commands_r, replies_w), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            )
        os.close(commands_r)
        os.close(replies_w)
        return cls(process, commands_w, replies_r)

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.from_browser], [], [], max(0.0, left))
            if not ready:
                raise TimeoutError("chromium sent nothing over the DevTools pipe")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        data: dict[str, Any] = json.loads(message)
        return data

    def _note(self, event: dict[str, Any]) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.problems.append(f"exception: {params['exceptionDetails']}")
        elif method == "Runtime.consoleAPICalled":
            self.problems.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("warning", "error"):
            self.problems.append(f"log {params['entry']['level']}: {params['entry']['text']}")

    def call(self, method: str, params: dict[str, Any] | None = None, *, page: bool = True,
             timeout: float = 60) -> dict[str, Any]:
        """Send one command (to the open tab unless `page=False`) and return its result."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if page and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") != self._next:
                self._note(reply)
                continue
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            result: dict[str, Any] = reply.get("result", {})
            return result

    def open(self, page: Path) -> None:
        target = self.call("Target.createTarget", {"url": "about:blank"}, page=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 page=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(f"{domain}.enable")
        self.call("Page.navigate", {"url": page.as_uri()})
        self.wait_for("document.body !== null && document.body.getAttribute('data-ready') === '1'")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values only)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60) -> Any:
        """Poll until the expression is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {timeout}s: {expression}")
            time.sleep(0.05)

    def type_into(self, selector: str, text: str) -> None:
        """Focus the element and type `text` as keyboard input (the page sees real input events)."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.call("Input.insertText", {"text": text})

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # already gone
            self.call("Browser.close", page=False, timeout=10)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)


@pytest.fixture
def devtools(chromium: str, tmp_path: Path) -> Iterator[DevTools]:
    """A headless chromium to drive (skips, like `chromium`, where there is none)."""
    browser = DevTools.start(chromium, tmp_path)
    try:
        yield browser
    finally:
        browser.close()
