"""A model config's `request` section: what an HTTP backend adds to every request besides the messages.

    request:
      extra_body: {top_k: 20, chat_template_kwargs: {enable_thinking: false}}   # merged into the JSON body
      headers: {X-Tenant: eval}                                                # extra HTTP headers
      max_completion_tokens: true        # send the token limit as max_completion_tokens (newer OpenAI models)
      sampling: false                    # send no temperature or top_p: for models that refuse them
      api_version: "2024-10-21"          # Azure: ?api-version=...
      deployment: gpt-4o-eval            # Azure: {base}/openai/deployments/{deployment}/chat/completions

Everything here can change answers, so all of it is part of the model fingerprint and the manifest, except
the values of headers whose names look like credentials (Authorization, *key*, *token*, *secret*): those
are recorded by name only.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mmgauge.core.errors import UserError
from mmgauge.core.secrets import looks_secret, public_headers

#: Headers the HTTP layer sets itself; overriding them would break framing or decoding.
MANAGED_HEADERS = frozenset(
    {"content-type", "content-length", "host", "accept-encoding", "transfer-encoding"}
)


class RequestOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    extra_body: dict[str, Any] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    max_completion_tokens: bool = False
    #: False: no temperature or top_p in the body, for models that refuse them (Anthropic's Claude 5 models
    #: and API version 2026-10-21, OpenAI's reasoning models); the model then samples with its own defaults.
    sampling: bool = True
    api_version: str | None = None
    deployment: str | None = None

    @field_validator("api_version", "deployment", mode="before")
    @classmethod
    def _dates_as_text(cls, value: Any) -> Any:
        # YAML reads an unquoted 2024-10-21 as a date; an API version is text.
        return value.isoformat() if isinstance(value, datetime.date) else value

    @field_validator("headers", mode="before")
    @classmethod
    def _header_values_as_text(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (str(v) if isinstance(v, int | float) and not isinstance(v, bool) else v)
                    for k, v in value.items()}
        return value

    @field_validator("headers")
    @classmethod
    def _no_managed_headers(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if name.lower() in MANAGED_HEADERS:
                raise ValueError(f"header '{name}' is set by mmgauge itself")
        return value

    @field_validator("extra_body")
    @classmethod
    def _json_body(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as error:
            raise ValueError(f"extra_body must be plain JSON ({error})") from None
        return value

    def given(self) -> set[str]:
        """The options the user set (to reject those a backend does not support)."""
        return set(self.model_dump(exclude_defaults=True))

    def public(self) -> dict[str, Any]:
        """What the manifest and the fingerprint record: everything but secret header values."""
        out = self.model_dump(exclude_defaults=True)
        if self.headers:
            out["headers"] = public_headers(self.headers)
        return out

    def secrets(self) -> list[str]:
        return [value for name, value in self.headers.items() if looks_secret(name)]

    def check_for(self, provider: str, understood: frozenset[str], reserved: frozenset[str]) -> None:
        """Stop with one line if a backend does not use an option given, or `extra_body` sets a body key the
        backend owns (`reserved`: messages, model) or a flag sets (temperature, ...)."""
        unsupported = sorted(self.given() - understood)
        if unsupported:
            raise UserError(f"the {provider} backend does not use this option",
                            field=f"request.{unsupported[0]}")
        owned = sorted(set(self.extra_body) & reserved)
        if owned:
            raise UserError(
                f"'{owned[0]}' is set by mmgauge (messages, model) or by its own flag (--temperature, "
                "--max-tokens, --seed), not through extra_body",
                field=f"request.extra_body.{owned[0]}",
            )

    @classmethod
    def parse(cls, raw: Any, *, file: str | None = None, field: str = "request") -> RequestOptions:
        """Validate a `request` section; a wrong one is a UserError naming the key."""
        if raw is None:
            return cls()
        if isinstance(raw, RequestOptions):
            return raw
        if not isinstance(raw, dict):
            raise UserError("must be a mapping", file=file, field=field)
        try:
            return cls.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            if first["type"] == "extra_forbidden":
                known = ", ".join(cls.model_fields)
                message = f"unknown request option '{where}'; known: {known}"
            else:
                message = first["msg"].removeprefix("Value error, ")
            raise UserError(message, file=file, field=f"{field}.{where}" if where else field) from None
