"""Any OpenAI-compatible chat-completions endpoint: vLLM, SGLang, LMDeploy, Ollama, hosted APIs, Azure.

One model may be served by several endpoints (`openai:MODEL@URL1|URL2`, or `options.base_urls` in a model
config), for example vLLM replicas. `--concurrency` is the ceiling PER ENDPOINT; the backend asks the runner
for the sum of the ceilings and each endpoint's adaptive limit decides how many of those requests it takes
(rule in `_endpoints.py`). Retries, fail-fast, size caps, redaction and the fingerprint are shared with every
HTTP provider (`http.py`); this module is the wire format only:

- POST {base}/chat/completions, or with `request.deployment` the Azure form
  {base}/openai/deployments/{deployment}/chat/completions; `request.api_version` adds ?api-version=;
- the key from `api_key_env` as `Authorization: Bearer KEY` (Azure form: `api-key: KEY`);
- images as base64 data URLs; the token limit as `max_tokens` (or `max_completion_tokens`);
- the answer is choices[0].message.content (text, or a list of text parts); usage prompt/completion tokens;
  finish_reason "length" marks it truncated;
- the model card is {base}/models (not asked in the Azure form, whose listing does not show deployments).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from mmgauge.backends._http_io import retry_after_seconds
from mmgauge.backends._images import ImageEncoder, image_mime
from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.http import HTTPBackend, Reply, ReplyError, token_count
from mmgauge.backends.request_options import RequestOptions
from mmgauge.core.types import ImagePart, Message, Usage

__all__ = ["OpenAIBackend", "image_mime", "retry_after_seconds", "to_openai_messages"]

#: Body keys that belong to mmgauge or to a generation flag, not to `extra_body`.
_OWNED_KEYS = frozenset({
    "model", "messages", "stream", "n", "temperature", "top_p", "seed", "max_tokens", "max_completion_tokens",
})


def to_openai_messages(
    messages: Sequence[Message],
    system_prompt: str | None,
    images: ImageEncoder | None = None,
    blob: Callable[[bytes], str] | None = None,
) -> list[dict[str, Any]]:
    """Messages in the chat-completions format, images as data URLs (their base64 through `blob` if given,
    see HTTPBackend.blob)."""
    encoder = images or ImageEncoder(max_bytes=0)
    out: list[dict[str, Any]] = []
    if system_prompt:
        out.append({"role": "system", "content": system_prompt})
    for message in messages:
        if not any(isinstance(part, ImagePart) for part in message.content):
            out.append({"role": message.role, "content": message.text()})
            continue
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, ImagePart):
                if blob is None:
                    url = encoder.data_url(part.image)
                else:
                    mime, data = encoder.encode(part.image)
                    url = f"data:{mime};base64,{blob(data)}"
                parts.append({"type": "image_url", "image_url": {"url": url}})
            else:
                parts.append({"type": "text", "text": part.text})
        out.append({"role": message.role, "content": parts})
    return out


def _content_text(content: Any) -> str | None:
    """message.content as text: a string, or the text parts of a list (some servers answer in parts)."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") in ("text", None)]
        if all(isinstance(t, str) for t in texts):
            return "".join(t for t in texts if isinstance(t, str))
    raise ReplyError(f"message content is a {type(content).__name__}, not text")


class OpenAIBackend(HTTPBackend):
    provider = "openai"
    request_options = frozenset(
        {"extra_body", "headers", "max_completion_tokens", "api_version", "deployment", "sampling"}
    )
    reserved_body_keys = _OWNED_KEYS

    def __init__(
        self,
        base_url: str | Sequence[str],
        model: str,
        *,
        api_key_env: str | None = None,
        settings: BackendSettings | None = None,
        request: RequestOptions | None = None,
    ) -> None:
        super().__init__(base_url, model, api_key_env=api_key_env, settings=settings, request=request)
        self.url = self.endpoint_url(self.base_url)

    def endpoint_url(self, base: str) -> str:
        deployment = self.options.deployment
        url = (
            f"{base}/openai/deployments/{quote(deployment, safe='')}/chat/completions"
            if deployment
            else f"{base}/chat/completions"
        )
        if self.options.api_version:
            url += f"?api-version={quote(self.options.api_version, safe='')}"
        return url

    def auth_headers(self, key: str) -> dict[str, str]:
        # Azure OpenAI takes its resource key in `api-key`; everything else takes a Bearer token.
        return {"api-key": key} if self.options.deployment else {"Authorization": f"Bearer {key}"}

    def model_card_url(self, base: str) -> str | None:
        return None if self.options.deployment else f"{base}/models"

    def build_body(self, request: Request) -> dict[str, Any]:
        config = request.config
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(request.messages, config.system_prompt, self.images, self.blob),
        }
        if self.options.sampling:
            body["temperature"] = config.temperature
        limit_key = "max_completion_tokens" if self.options.max_completion_tokens else "max_tokens"
        body[limit_key] = config.max_tokens
        if config.seed is not None:
            body["seed"] = config.seed
        if config.top_p is not None and self.options.sampling:
            body["top_p"] = config.top_p
        return body

    def refused_setting(self, message: str) -> tuple[str, str] | None:
        # OpenAI's reasoning models: "Unsupported parameter: 'max_tokens' is not supported with this model.
        # Use 'max_completion_tokens' instead."
        wanted = "max_completion_tokens" in message
        if not self.options.max_completion_tokens and wanted and "max_tokens" in message.replace(
                "max_completion_tokens", ""):
            return ("max_tokens", "add `request: {max_completion_tokens: true}` to a model config to send "
                    "the token limit under that name")
        return super().refused_setting(message)

    def payload(self, request: Request) -> dict[str, Any]:
        """The JSON body as a dict: what `encode()` sends, images included."""
        data: dict[str, Any] = json.loads(bytes(self.encode(request)))
        return data

    def parse_reply(self, data: Any) -> Reply:
        if not isinstance(data, dict):
            raise ReplyError(f"the body is a JSON {type(data).__name__}, not an object")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ReplyError("no choices")
        first = choices[0]
        message = first.get("message") if isinstance(first, dict) else None
        if not isinstance(message, dict):
            raise ReplyError("choices[0] has no message")
        finish = first.get("finish_reason")
        refusal = message.get("refusal")
        # A refusal, or an answer a content filter stopped, is the same on every try: the request's own error.
        if isinstance(refusal, str) and refusal:
            raise ReplyError(f"the model refused: {refusal}", permanent=True, code="refusal")
        if finish == "content_filter":
            raise ReplyError("a content filter stopped the answer (finish_reason content_filter)",
                             permanent=True, code="finish_reason content_filter")
        # "length": the answer hit max_tokens, and what is read from it may be cut short.
        return Reply(text=_content_text(message.get("content")), usage=_usage(data.get("usage")),
                     truncated=finish == "length")


def _usage(usage: Any) -> Usage:
    # Usage is bookkeeping: a malformed one is dropped, the answer kept.
    if not isinstance(usage, dict):
        return Usage()
    return Usage(
        prompt_tokens=token_count(usage.get("prompt_tokens")),
        completion_tokens=token_count(usage.get("completion_tokens")),
    )
