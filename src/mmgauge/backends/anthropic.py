"""The Anthropic Messages API (`anthropic:MODEL@URL`; without @URL, https://api.anthropic.com).

The wire format only; retries, endpoints, fail-fast, caps, redaction and the fingerprint are `http.py`'s.

- POST {URL}/v1/messages (a URL that already ends in /v1 is not doubled);
- the key from `api_key_env` in `x-api-key`, and `anthropic-version: 2023-06-01` (a `request.headers`
  entry overrides it);
- `system` is a top-level field (the generation config's system prompt, then any system messages);
  `max_tokens` is required and always sent; images are base64 `source` blocks (the API accepts JPEG, PNG,
  GIF and WEBP; a request with another format comes back as that request's error);
- the answer is the concatenated `text` blocks of `content`; usage is input/output tokens; stop_reason
  "max_tokens" marks it truncated;
- 529 (overloaded) slows the endpoint down like 429 and 503, and is retried;
- the model card is GET {URL}/v1/models/{MODEL}, which also resolves an alias to the dated model id.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from mmgauge.backends.base import Request
from mmgauge.backends.http import HTTPBackend, Reply, ReplyError, token_count
from mmgauge.core.types import ImagePart, Usage

#: The Messages API version this module speaks (Anthropic's current stable version header).
API_VERSION = "2023-06-01"


class AnthropicBackend(HTTPBackend):
    provider = "anthropic"
    default_base_url = "https://api.anthropic.com"
    retry_status = HTTPBackend.retry_status | {529}
    overload_status = frozenset({429, 503, 529})
    request_options = frozenset({"extra_body", "headers", "sampling"})
    reserved_body_keys = frozenset(
        {"model", "messages", "system", "stream", "max_tokens", "temperature", "top_p"}
    )

    def _root(self, base: str) -> str:
        return base.removesuffix("/v1")

    def endpoint_url(self, base: str) -> str:
        return f"{self._root(base)}/v1/messages"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-api-key": key}

    def protocol_headers(self) -> dict[str, str]:
        return {"anthropic-version": API_VERSION}

    def wire_identity(self) -> dict[str, Any]:
        given = {k.lower(): v for k, v in self.options.headers.items()}
        return {"anthropic_version": given.get("anthropic-version", API_VERSION)}

    def model_card_url(self, base: str) -> str | None:
        return f"{self._root(base)}/v1/models/{quote(self.model, safe='')}"

    def served_card(self, data: Any) -> Any:
        # One model object; its id may differ from the name asked for (an alias resolves to a dated id).
        return data if isinstance(data, dict) and data.get("type", "model") == "model" else None

    def build_body(self, request: Request) -> dict[str, Any]:
        config = request.config
        system = [config.system_prompt] if config.system_prompt else []
        messages: list[dict[str, Any]] = []
        for message in request.messages:
            if message.role == "system":
                system.append(message.text())
                continue
            blocks: list[dict[str, Any]] = []
            for part in message.content:
                if isinstance(part, ImagePart):
                    media_type, data = self.images.encode(part.image)
                    source = {"type": "base64", "media_type": media_type, "data": self.blob(data)}
                    blocks.append({"type": "image", "source": source})
                else:
                    blocks.append({"type": "text", "text": part.text})
            messages.append({"role": message.role, "content": blocks})
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": config.max_tokens,
            "messages": messages,
        }
        if self.options.sampling:
            body["temperature"] = config.temperature
        if system:
            body["system"] = "\n\n".join(system)
        if config.top_p is not None and self.options.sampling:
            body["top_p"] = config.top_p
        return body

    def parse_reply(self, data: Any) -> Reply:
        if not isinstance(data, dict):
            raise ReplyError(f"the body is a JSON {type(data).__name__}, not an object")
        stop = data.get("stop_reason")
        if stop == "refusal":
            # Its safety classifiers stopped the answer: the same on every try, the request's own error.
            raise ReplyError(_refusal_text(data.get("stop_details")), permanent=True,
                             code="stop_reason refusal")
        content = data.get("content")
        if not isinstance(content, list):
            raise ReplyError("no content list")
        texts = [
            block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text"
        ]
        if not all(isinstance(text, str) for text in texts):
            raise ReplyError("a text block without text")
        usage = data.get("usage")
        return Reply(
            text="".join(t for t in texts if isinstance(t, str)),
            usage=Usage(
                prompt_tokens=token_count(usage.get("input_tokens")),
                completion_tokens=token_count(usage.get("output_tokens")),
            )
            if isinstance(usage, dict)
            else Usage(),
            # What was written before the token limit or the model's context window ran out: kept, marked cut.
            truncated=stop in _CUT,
        )


#: Stop reasons of an answer cut short by a limit rather than finished.
_CUT = frozenset({"max_tokens", "model_context_window_exceeded"})


def _refusal_text(details: Any) -> str:
    """The refusal in one line, with the policy category and explanation the API gives (`stop_details`)."""
    found = details if isinstance(details, dict) else {}
    category, explanation = found.get("category"), found.get("explanation")
    text = "the model refused (stop_reason refusal" + (f", category {category}" if category else "") + ")"
    return text + (f": {explanation}" if isinstance(explanation, str) and explanation else "")
