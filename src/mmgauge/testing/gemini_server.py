"""A local Gemini API for tests (127.0.0.1 only), on the test server's machinery (`server.py`).

- POST /v1beta/models/{model}:generateContent answers `answer(last user text)` with usage metadata;
- GET /v1beta/models/{model} returns the model's card if `models` has it, else Google's 404.

With `api_key` set, a request must carry it in `x-goog-api-key`: without one it is refused with 403, with
another with 400 (as the real API does; this one also echoes the key, as some servers do, so a client must
not pass it on). Besides the faults of `server.py` (hang, close, malformed), actions may be `GEMINI_KINDS`.
"""

from __future__ import annotations

import json
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote, urlsplit

from mmgauge.testing.faults import Action
from mmgauge.testing.server import FakeOpenAIServer

__all__ = ["GEMINI_KINDS", "Action", "FakeGeminiServer", "google_error"]

#: Replies a request can be given besides a normal answer:
#:   length: the answer cut at the token limit (finishReason MAX_TOKENS);
#:   safety: a candidate stopped by the safety filter (finishReason SAFETY, no content, safety ratings);
#:   recitation: the same for RECITATION, with the part of the answer written so far;
#:   prompt_blocked: no candidates, promptFeedback.blockReason SAFETY;
#:   empty_candidates: `"candidates": []` and nothing else;
#:   400 / 429 / 500 / 503: Google's JSON error (429 and 503 with the Action's Retry-After).
GEMINI_KINDS = ("length", "safety", "recitation", "prompt_blocked", "empty_candidates", "400", "429", "500",
                "503")

_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
           500: "INTERNAL", 503: "UNAVAILABLE"}

_PREFIX = "/v1beta/models/"


def google_error(code: int, message: str) -> bytes:
    """An error body as Google's APIs write it."""
    return json.dumps({"error": {"code": code, "message": message, "status": _STATUS[code]}}).encode()


def _user_text(body: dict[str, Any]) -> str:
    for content in reversed(body.get("contents", [])):
        if isinstance(content, dict) and content.get("role", "user") == "user":
            return "\n".join(p["text"] for p in content.get("parts", []) if isinstance(p.get("text"), str))
    return ""


class FakeGeminiServer(FakeOpenAIServer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: Model names GET models/{name} knows, with their `version`.
        self.models: dict[str, str] = {"gemini-2.0-flash": "2.0"}
        #: The media type of every inline image received, in order.
        self.image_types: list[str] = []
        self.generated: Counter[str] = Counter()  # requests per model name

    def _sent_key(self, handler: BaseHTTPRequestHandler) -> str:
        return handler.headers.get("x-goog-api-key", "")

    def _handle_get(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        with self._lock:
            self.models_requests += 1
        name = unquote(path.removeprefix(_PREFIX))
        if path.startswith(_PREFIX) and name in self.models:
            card = {"name": f"models/{name}", "version": self.models[name], "displayName": name,
                    "inputTokenLimit": 1048576, "outputTokenLimit": 8192,
                    "supportedGenerationMethods": ["generateContent", "countTokens"], "temperature": 1.0}
            self._send(handler, 200, json.dumps(card).encode())
            return
        self._send(handler, 404, google_error(404, f"models/{name} is not found for API version v1beta"))

    def _handle_post(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length", "0")))
        path = urlsplit(handler.path).path
        with self._lock:
            self.requests += 1
        model, _, method = unquote(path.removeprefix(_PREFIX)).rpartition(":")
        if not path.startswith(_PREFIX) or method != "generateContent" or not model:
            self._send(handler, 404, google_error(404, f"no route {path}"))
            return
        body = json.loads(raw)
        text = _user_text(body)
        action = self._action(text)
        inline = [p["inline_data"] for c in body.get("contents", []) for p in c.get("parts", [])
                  if isinstance(p, dict) and "inline_data" in p]
        with self._lock:
            self.prompts[text] += 1
            self.generated[model] += 1
            self.images_seen += len(inline)
            self.image_types += [part.get("mime_type", "") for part in inline]
            self.last_path = handler.path
            self.last_headers = {k.lower(): ", ".join(handler.headers.get_all(k) or [])
                                 for k in handler.headers}
            self.last_body = body
        if self.api_key is not None and self._sent_key(handler) != self.api_key:
            sent = self._sent_key(handler)
            status = 400 if sent else 403
            message = f"API key not valid: {sent}" if sent else "Method doesn't allow unregistered callers"
            self._send(handler, status, google_error(status, message))
            return
        if not body.get("contents"):
            self._send(handler, 400, google_error(400, "GenerateContentRequest.contents: not specified"))
            return
        if action.kind in ("400", "429", "500", "503"):
            status = int(action.kind)
            headers = {"Retry-After": action.retry_after} if action.retry_after is not None else {}
            self._send(handler, status, google_error(status, f"fault {status}"), headers)
            return
        if action.kind not in ("ok", *GEMINI_KINDS) and self._fault(handler, action, anthropic=False):
            return
        with self._lock:
            self.completed += 1
        self._send(handler, 200, json.dumps(self._reply(body, text, action.kind)).encode())

    def _reply(self, body: dict[str, Any], text: str, kind: str) -> dict[str, Any]:
        usage = {"promptTokenCount": len(text.split()), "candidatesTokenCount": 1, "totalTokenCount": 0}
        if kind == "prompt_blocked":
            return {"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []}, "usageMetadata": usage}
        if kind == "empty_candidates":
            return {"candidates": []}
        ratings = [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}]
        if kind == "safety":
            return {"candidates": [{"finishReason": "SAFETY", "index": 0, "safetyRatings": ratings}],
                    "usageMetadata": usage}
        reason = {"length": "MAX_TOKENS", "recitation": "RECITATION"}.get(kind, "STOP")
        content = {"role": "model", "parts": [{"text": self.answer(text)}]}
        return {"candidates": [{"content": content, "finishReason": reason, "index": 0}],
                "usageMetadata": usage, "modelVersion": "gemini-2.0-flash-001"}
