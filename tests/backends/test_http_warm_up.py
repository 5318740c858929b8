"""An HTTP backend's warm-up: the client library loads in the background while the session reads the data."""

from __future__ import annotations

import subprocess
import sys

# A fresh interpreter: this one imported aiohttp long ago.
WARM_UP = """
import sys, time
from mmgauge.backends.openai import OpenAIBackend

backend = OpenAIBackend("http://127.0.0.1:9/v1", "m")
assert "aiohttp" not in sys.modules, "constructing the backend imported aiohttp"
backend.warm_up()
deadline = time.monotonic() + 60
while "aiohttp.client" not in sys.modules and time.monotonic() < deadline:
    time.sleep(0.01)
print(sorted(name for name in sys.modules if name in ("aiohttp", "aiohttp.client")))
"""


def test_warm_up_imports_the_client_library_in_the_background() -> None:
    result = subprocess.run([sys.executable, "-c", WARM_UP], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == "['aiohttp', 'aiohttp.client']"


def test_a_command_that_fails_at_once_after_warm_up_exits_cleanly() -> None:
    # The import may still be running when the interpreter exits: nothing of it reaches the user.
    code = ("from mmgauge.backends.openai import OpenAIBackend\n"
            "OpenAIBackend('http://127.0.0.1:9/v1', 'm').warm_up()\n"
            "raise SystemExit(3)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (3, "")
