"""The Gemini API (`gemini:MODEL@URL`; without @URL, https://generativelanguage.googleapis.com).

The wire format only; retries, endpoints, fail-fast, caps, redaction and the fingerprint are `http.py`'s.

- POST {URL}/v1beta/models/{MODEL}:generateContent (a URL that already ends in /v1beta is not doubled; a
  model given as `models/...` or `tunedModels/...` is used as the resource name it is);
- the key from `api_key_env` in the `x-goog-api-key` header, never in the URL (where `?key=` would put it
  in every proxy's log);
- system prompt and system messages go in `systemInstruction`; assistant turns have the role `model`;
  images are `inline_data` parts with their media type; temperature, the token limit, seed and top_p go
  in `generationConfig`. `request.extra_body.generationConfig` adds to it (e.g. `thinkingConfig`), except
  for the fields the flags set;
- the answer is the text parts of candidates[0] (thought summaries left out); usage is promptTokenCount /
  candidatesTokenCount; finishReason MAX_TOKENS marks it truncated. Any finishReason but STOP and
  MAX_TOKENS (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, OTHER, ...) and a prompt blocked by
  `promptFeedback.blockReason` are that request's error, not retried: a re-run gets the same refusal;
- the model card is GET {URL}/v1beta/models/{MODEL} (its `name` and `version` enter the fingerprint); an
  endpoint that answers it with 404 is a notice, as an unlisted model is for `openai:`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.http import HTTPBackend, Reply, ReplyError, token_count
from mmgauge.backends.request_options import RequestOptions
from mmgauge.core.errors import UserError
from mmgauge.core.types import ImagePart, Usage

DEFAULT_URL = "https://generativelanguage.googleapis.com"

#: finishReason values that come with an answer (absent or unspecified: a gateway that leaves it out).
_ANSWERED = frozenset({None, "STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"})

#: generationConfig fields a flag sets (--temperature, --max-tokens, --seed, top_p), in both JSON spellings.
_FLAG_FIELDS = frozenset({"temperature", "maxOutputTokens", "max_output_tokens", "seed", "topP", "top_p"})


class GeminiBackend(HTTPBackend):
    provider = "gemini"
    default_base_url = DEFAULT_URL
    request_options = frozenset({"extra_body", "headers"})
    # The snake_case spellings too: the API reads both, and a body with both is refused.
    reserved_body_keys = frozenset({
        "contents", "systemInstruction", "system_instruction", "generation_config", "model", "stream",
    })
    # The image types Gemini documents (no GIF): a GIF goes as a PNG of its first frame.
    image_types = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})

    def __init__(
        self,
        base_url: str | Sequence[str],
        model: str,
        *,
        api_key_env: str | None = None,
        settings: BackendSettings | None = None,
        request: RequestOptions | None = None,
    ) -> None:
        options = request or RequestOptions()
        extra = dict(options.extra_body)
        config = extra.pop("generationConfig", {})
        field = "request.extra_body.generationConfig"
        if not isinstance(config, dict):
            raise UserError("must be a mapping", field=field)
        owned = sorted(set(config) & _FLAG_FIELDS)
        if owned:
            raise UserError("is set by its own flag (--temperature, --max-tokens, --seed), not extra_body",
                            field=f"{field}.{owned[0]}")
        #: The user's additions to generationConfig: merged in `build_body` (the wrapper's merge of extra_body
        #: would replace the whole section), and in the fingerprint through `wire_identity`.
        self.extra_config: dict[str, Any] = config
        super().__init__(base_url, model, api_key_env=api_key_env, settings=settings,
                         request=options.model_copy(update={"extra_body": extra}))

    def _resource(self, base: str) -> str:
        name = self.model if self.model.startswith(("models/", "tunedModels/")) else f"models/{self.model}"
        return f"{base.removesuffix('/v1beta')}/v1beta/{quote(name, safe='/')}"

    def endpoint_url(self, base: str) -> str:
        return f"{self._resource(base)}:generateContent"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    def wire_identity(self) -> dict[str, Any]:
        return {"generation_config": self.extra_config} if self.extra_config else {}

    def model_card_url(self, base: str) -> str | None:
        return self._resource(base)

    def served_card(self, data: Any) -> Any:
        # One model object; `name` is its id. Token limits and default sampling values are left out: they
        # describe the API's limits, not which weights answer.
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            return {"id": data["name"], "version": data.get("version")}
        return None

    def notices(self) -> list[str]:
        # `ask` reports a non-200 card as "HTTP <status>: ..."; a 404 is the API's "no such model".
        missing = [self._redact(url) for url, found in (self._served or {}).items()
                   if str(found.get("error", "")).startswith("HTTP 404")]
        if not missing:
            return []
        return [f"{', '.join(missing)} does not know model '{self.model}' (GET models/{self.model} answered "
                "404); a gateway that answers any model name answers with the model it has"]

    def build_body(self, request: Request) -> dict[str, Any]:
        config = request.config
        system = [config.system_prompt] if config.system_prompt else []
        contents: list[dict[str, Any]] = []
        for message in request.messages:
            if message.role == "system":
                system.append(message.text())
                continue
            parts: list[dict[str, Any]] = []
            for part in message.content:
                if isinstance(part, ImagePart):
                    mime, data = self.images.encode(part.image)
                    parts.append({"inline_data": {"mime_type": mime, "data": self.blob(data)}})
                else:
                    parts.append({"text": part.text})
            contents.append({"role": "model" if message.role == "assistant" else "user", "parts": parts})
        generation: dict[str, Any] = {
            **self.extra_config, "temperature": config.temperature, "maxOutputTokens": config.max_tokens,
        }
        if config.seed is not None:
            generation["seed"] = config.seed
        if config.top_p is not None:
            generation["topP"] = config.top_p
        body: dict[str, Any] = {"contents": contents, "generationConfig": generation}
        if system:
            body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
        return body

    def parse_reply(self, data: Any) -> Reply:
        if not isinstance(data, dict):
            raise ReplyError(f"the body is a JSON {type(data).__name__}, not an object")
        candidates = data.get("candidates")
        if not candidates:
            feedback = data.get("promptFeedback")
            blocked = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if blocked:
                raise ReplyError(f"the prompt was blocked (promptFeedback.blockReason {blocked})",
                                 permanent=True, code=f"blockReason {blocked}")
            raise ReplyError("no candidates")
        first = candidates[0] if isinstance(candidates, list) else None
        if not isinstance(first, dict):
            raise ReplyError("candidates[0] is not an object")
        reason = first.get("finishReason")
        if reason is not None and not isinstance(reason, str):
            raise ReplyError("finishReason is not text")
        if reason not in _ANSWERED:
            raise ReplyError(f"the model stopped without an answer (finishReason {reason})", permanent=True,
                             code=f"finishReason {reason}")
        content = first.get("content")
        parts = content.get("parts", []) if isinstance(content, dict) else []
        if not isinstance(parts, list):
            raise ReplyError("content.parts is not a list")
        # A thought summary (includeThoughts) is the model's reasoning, not its answer.
        texts = [p.get("text") for p in parts if isinstance(p, dict) and "text" in p and not p.get("thought")]
        if not all(isinstance(text, str) for text in texts):
            raise ReplyError("a part's text is not text")
        text = "".join(t for t in texts if isinstance(t, str))
        return Reply(text=text, usage=_usage(data.get("usageMetadata")), truncated=reason == "MAX_TOKENS")


def _usage(usage: Any) -> Usage:
    # Usage is bookkeeping: a malformed one is dropped, the answer kept.
    if not isinstance(usage, dict):
        return Usage()
    return Usage(prompt_tokens=token_count(usage.get("promptTokenCount")),
                 completion_tokens=token_count(usage.get("candidatesTokenCount")))
