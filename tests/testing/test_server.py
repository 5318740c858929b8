"""The shipped test server: a client that hangs up mid-request (a run stopping with requests in flight) is no
error of the server's, and prints nothing."""

from __future__ import annotations

import socket
import struct
import time

import pytest

from mmgauge.testing.server import FakeOpenAIServer


def test_a_client_that_resets_its_connection_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer() as server:
        host, port = server.root_url.removeprefix("http://").split(":")
        for _ in range(3):
            client = socket.create_connection((host, int(port)))
            client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            # Closed with a reset, not a FIN: the server's read fails with ECONNRESET.
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            client.close()
        time.sleep(0.3)  # the handler threads meet the resets
    assert "Traceback" not in capfd.readouterr().err
