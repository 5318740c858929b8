"""A local model server for tests and benchmarks (127.0.0.1 only), speaking two APIs:

- OpenAI chat completions: POST /v1/chat/completions, and the Azure form
  POST /openai/deployments/{deployment}/chat/completions?api-version=...; GET /v1/models lists `cards`;
- Anthropic Messages: POST /v1/messages (needs `anthropic-version` and `max_tokens`, takes base64 image
  blocks); GET /v1/models/{id} returns the card with that id (or that `alias`).

What it does with each request, first match wins: actions queued with `script()` (one per request, in arrival
order), `by_text` (an action for requests whose last user text contains a key), `faults` (a seeded
`FaultSchedule`), then `default`. Faults are listed in `faults.FAULT_KINDS`, with the real servers'
behaviours among them (llama.cpp's identical instant 500, OpenAI's context-length 400, answers cut by
`finish_reason: "length"`). Like llama.cpp and many gateways it answers any model name, while GET /v1/models
lists only `cards` (one model, "m", by default). `answer` maps the last user text
to the reply text (default "yes"). With `api_key` set, a request without that key is refused with 401 (and,
like some real servers, the error body echoes the key it was sent). `kill()` stops it the hard way: open
connections are cut and new ones refused, like a crashed server.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from mmgauge.testing.faults import CONTEXT_LENGTH_400, LLAMA_CPP_500, OK, Action, FaultSchedule

__all__ = ["OK", "Action", "FakeOpenAIServer", "FaultSchedule", "vllm_card"]

_AZURE = re.compile(r"^/openai/deployments/([^/]+)/chat/completions$")


def vllm_card(model: str, root: str | None = None) -> dict[str, Any]:
    """A model card as vLLM lists it (its `created`, the time of the request, is added when served)."""
    return {"id": model, "object": "model", "owned_by": "vllm", "root": root or f"/models/{model}",
            "parent": None, "max_model_len": 4096}


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages", [])):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        return "\n".join(part.get("text", "") for part in content or [] if part.get("type") == "text")
    return ""


def _count_images(body: dict[str, Any]) -> int:
    return sum(
        1
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") in ("image_url", "image")
    )


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 makes concurrent clients wait for SYN retransmits.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (a run stopping with requests in flight) is no fault of the server's;
        # anything else is printed as socketserver does.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class FakeOpenAIServer:
    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        answer: Callable[[str], str] | None = None,
        port: int = 0,
        api_key: str | None = None,
    ) -> None:
        self.latency_s = latency_s
        self.answer = answer or (lambda text: "yes")
        self.api_key = api_key
        self.default = OK
        #: Requests whose user text contains a key get that action every time (after the script).
        self.by_text: dict[str, Action] = {}
        self.faults: FaultSchedule | None = None
        #: What GET /v1/models lists (None: no such route, 404). vLLM-like by default.
        self.cards: list[dict[str, Any]] | None = [vllm_card("m")]
        #: Give listed cards without `created` the time of the request, as vLLM and SGLang do.
        self.stamp_created = True
        self.big_bytes = 9 * 1024 * 1024
        self.bomb_bytes = 64 * 1024 * 1024
        self._script: list[Action] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._bomb: bytes | None = None
        self._ids = itertools.count(1)
        self.requests = 0
        self.models_requests = 0
        self.prompts: Counter[str] = Counter()
        self.completed = 0
        #: Requests being answered now, and the most there were at once.
        self.in_flight = 0
        self.most_in_flight = 0
        self.images_seen = 0
        self.last_path = ""
        self.last_headers: dict[str, str] = {}
        self.last_body: dict[str, Any] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle on, the client's delayed ACK adds ~40 ms.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with owner._lock:
                    owner._connections.add(self.connection)

            def finish(self) -> None:
                with owner._lock:
                    owner._connections.discard(self.connection)
                with contextlib.suppress(OSError):  # the connection was cut by kill()
                    super().finish()

            def do_POST(self) -> None:
                owner._handle_post(self)

            def do_GET(self) -> None:
                owner._handle_get(self)

        self._httpd = _Server(("127.0.0.1", port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def root_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"

    def script(self, *actions: Action) -> None:
        with self._lock:
            self._script.extend(actions)

    def start(self) -> FakeOpenAIServer:
        # A short poll interval: stop() waits for the serve loop's next poll.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._stopping.is_set():
            return
        self._stopping.set()  # wakes hanging requests
        if self._thread is not None:
            self._httpd.shutdown()
        self._httpd.server_close()

    def kill(self) -> None:
        """Stop like a crashed process: refuse new connections and cut every open one mid-request."""
        self.stop()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- requests -------------------------------------------------------------------------------------------

    def _action(self, text: str) -> Action:
        with self._lock:
            if self._script:
                return self._script.pop(0)
        action = next((a for key, a in self.by_text.items() if key in text), None)
        if action is None and self.faults is not None:
            action = self.faults.next()
        return action or self.default

    def _handle_get(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path.rstrip("/")
        with self._lock:
            self.models_requests += 1
        if self.cards is not None and path == "/v1/models":
            now = int(time.time())
            cards = [{"created": now, **c} if self.stamp_created else c for c in self.cards]
            self._send(handler, 200, json.dumps({"object": "list", "data": cards}).encode())
            return
        if self.cards is not None and path.startswith("/v1/models/"):
            wanted = unquote(path.removeprefix("/v1/models/"))
            card = next((c for c in self.cards if wanted in (c.get("id"), c.get("alias"))), None)
            if card is not None:
                found = {k: v for k, v in card.items() if k != "alias"}
                self._send(handler, 200, json.dumps({"type": "model", **found}).encode())
                return
        self._send(handler, 404, b'{"error": "not found"}')

    def _handle_post(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0"))
        raw = handler.rfile.read(length)
        parts = urlsplit(handler.path)
        path = parts.path.rstrip("/")
        anthropic = path == "/v1/messages"
        with self._lock:
            self.requests += 1
        if not (anthropic or path == "/v1/chat/completions" or _AZURE.match(path)):
            self._send(handler, 404, b'{"error": "not found"}')
            return
        body = json.loads(raw)
        text = _last_user_text(body)
        action = self._action(text)
        with self._lock:
            self.prompts[text] += 1
            self.images_seen += _count_images(body)
            self.last_path = handler.path
            # A header sent twice shows as "a, b" (its HTTP meaning), so a test sees the duplicate.
            self.last_headers = {
                k.lower(): ", ".join(handler.headers.get_all(k) or []) for k in handler.headers
            }
            self.last_body = body
        refused = self._refusal(handler, anthropic, body)
        if refused is not None:
            self._send(handler, *refused)
            return
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            time.sleep(self.latency_s + action.delay_s)
        finally:
            with self._lock:
                self.in_flight -= 1
        if not self._fault(handler, action, anthropic):
            reply = (self._anthropic_reply(body, text, action) if anthropic
                     else self._openai_reply(body, text, action))
            with self._lock:
                self.completed += 1
            self._send(handler, 200, json.dumps(reply).encode())

    def _sent_key(self, handler: BaseHTTPRequestHandler) -> str:
        bearer = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        return handler.headers.get("x-api-key") or handler.headers.get("api-key") or bearer

    def _refusal(
        self, handler: BaseHTTPRequestHandler, anthropic: bool, body: dict[str, Any]
    ) -> tuple[int, bytes] | None:
        if self.api_key is not None and self._sent_key(handler) != self.api_key:
            return 401, self._key_error(handler)
        if anthropic and not handler.headers.get("anthropic-version"):
            return 400, b'{"type": "error", "error": {"message": "anthropic-version header is required"}}'
        if anthropic and not isinstance(body.get("max_tokens"), int):
            return 400, b'{"type": "error", "error": {"message": "max_tokens: Field required"}}'
        return None

    def _key_error(self, handler: BaseHTTPRequestHandler) -> bytes:
        # Echoes the key, as some real servers do ("Incorrect API key provided: sk-..."): a client must not
        # pass it on.
        message = f"Incorrect API key provided: {self._sent_key(handler)}"
        return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()

    def _fault(self, handler: BaseHTTPRequestHandler, action: Action, anthropic: bool) -> bool:
        """Serve `action` if it is a fault; False if the request is to be answered normally."""
        kind = action.kind
        if kind == "hang":
            self._stopping.wait(3600)
            handler.close_connection = True
            return True
        if kind == "close":
            handler.close_connection = True
            handler.connection.close()
            return True
        if kind in ("429", "500", "503", "529"):
            headers = {"Retry-After": action.retry_after} if action.retry_after is not None else {}
            error: dict[str, Any] = {"type": "overloaded_error" if kind == "529" else "server error"}
            if kind == "500":
                error["request_id"] = f"req-{next(self._ids)}"  # transient: no two alike
            self._send(handler, int(kind), json.dumps({"error": error}).encode(), headers)
            return True
        if kind in ("500_same", "context_length"):
            status, body = (500, LLAMA_CPP_500) if kind == "500_same" else (400, CONTEXT_LENGTH_400)
            self._send(handler, status, json.dumps(body).encode())
            return True
        if kind == "401":
            self._send(handler, 401, self._key_error(handler))
            return True
        if kind == "body":
            self._send(handler, action.status, json.dumps(action.body).encode(), dict(action.headers))
            return True
        if kind == "malformed":
            self._send(handler, 200, b'{"choices": [{"message": ' if not anthropic else b'{"content": [')
            return True
        if kind == "empty_choices":
            self._send(handler, 200, b'{"content": []}' if anthropic else b'{"choices": []}')
            return True
        if kind == "gzip_bomb":
            self._send(handler, 200, self._gzip_bomb(), {"Content-Encoding": "gzip"})
            return True
        if kind == "big":
            self._send_chunked(handler, b'{"choices": [{"message": {"content": "' + b"a" * self.big_bytes)
            return True
        return False

    def _openai_reply(self, body: dict[str, Any], text: str, action: Action) -> dict[str, Any]:
        content = None if action.kind == "null_content" else self.answer(text)
        usage: Any = {"prompt_tokens": len(text.split()), "completion_tokens": 1, "total_tokens": 0}
        if action.kind == "bad_usage":
            usage = {"prompt_tokens": "12", "completion_tokens": 1.5} if len(text) % 2 else "lots"
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "length" if action.kind == "length" else "stop"}],
            "usage": usage,
        }

    def _anthropic_reply(self, body: dict[str, Any], text: str, action: Action) -> dict[str, Any]:
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [{"type": "text", "text": self.answer(text)}],
            "stop_reason": "max_tokens" if action.kind == "length" else "end_turn",
            "usage": {"input_tokens": len(text.split()), "output_tokens": 1},
        }

    def _gzip_bomb(self) -> bytes:
        with self._lock:
            if self._bomb is None:
                self._bomb = gzip.compress(b"\0" * self.bomb_bytes, compresslevel=9)
            return self._bomb

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:
            handler.close_connection = True  # the client gave up (a size cap, a timeout) or kill() cut it

    @staticmethod
    def _send_chunked(handler: BaseHTTPRequestHandler, data: bytes, chunk: int = 256 * 1024) -> None:
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Transfer-Encoding", "chunked")
            handler.end_headers()
            for start in range(0, len(data), chunk):
                piece = data[start : start + chunk]
                handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            handler.wfile.write(b"0\r\n\r\n")
        except OSError:
            handler.close_connection = True  # the client stopped reading at its cap


def main() -> None:
    """Serve in the foreground: `python -m mmgauge.testing.server PORT LATENCY_S` (for benches)."""
    import sys

    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    server = FakeOpenAIServer(latency_s=latency, port=port)
    print(server.base_url, flush=True)
    server._httpd.serve_forever()


if __name__ == "__main__":
    main()
