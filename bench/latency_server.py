"""A minimal OpenAI-compatible server for the endpoint bench: every chat completion answers after a fixed
latency, and the server notes when each request arrived and when its reply was sent.

Why not `mmgauge.testing.server`: the bench needs the times each request was in flight as the server saw
them (the same clock for whichever client is measured, and nothing inside the client to instrument), and a
server light enough to leave the client the CPU (aiohttp on one event loop, the body read but never parsed).

- POST /v1/chat/completions: reads the body, waits `latency` seconds, answers "A".
- GET /v1/models: lists the model "bench".
- GET /stats: `[[arrived, replied, body_bytes], ...]` (time.monotonic seconds) since the last /stats call,
  then forgets them.

Usage: python bench/latency_server.py LATENCY_S; prints its base URL (http://127.0.0.1:PORT/v1) on stdout.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time

from aiohttp import web

REPLY = json.dumps({
    "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "bench",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}).encode()
MODELS = json.dumps({"object": "list", "data": [{"id": "bench", "object": "model", "owned_by": "bench"}]})


def app(latency: float) -> web.Application:
    seen: list[tuple[float, float, int]] = []

    async def chat(request: web.Request) -> web.Response:
        arrived = time.monotonic()  # headers read: the request is in flight from here
        body = await request.read()
        await asyncio.sleep(latency)
        response = web.Response(body=REPLY, content_type="application/json")
        seen.append((arrived, time.monotonic(), len(body)))
        return response

    async def models(request: web.Request) -> web.Response:
        return web.Response(text=MODELS, content_type="application/json")

    async def stats(request: web.Request) -> web.Response:
        found = list(seen)
        seen.clear()
        return web.Response(text=json.dumps(found), content_type="application/json")

    application = web.Application(client_max_size=1 << 30)
    application.add_routes([web.post("/v1/chat/completions", chat), web.get("/v1/models", models),
                            web.get("/stats", stats)])
    return application


def main() -> None:
    latency = float(sys.argv[1])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)  # connections made before the loop runs wait in the backlog, none is refused
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", flush=True)
    web.run_app(app(latency), sock=sock, print=None, access_log=None, backlog=1024)


if __name__ == "__main__":
    main()
