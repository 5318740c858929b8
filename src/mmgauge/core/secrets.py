"""Keeping secrets (API keys, auth headers) out of everything mmgauge stores, prints or raises.

`redact(text, secrets)` is the pure form. Backends also `remember()` every secret they send, so code that
prints or stores text it did not build itself (an exception, a server's error body) can `scrub()` it without
knowing which backend the secret came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from mmgauge.core.types import ModelSpec

REDACTED = "<redacted>"

#: Header or field names whose values are credentials: named in manifests, never written.
_SECRET_NAME = re.compile(r"authori[sz]ation|key|token|secret|password|passwd|cookie|credential", re.I)

#: Shorter values are not treated as secrets by `scrub()`: redacting "ab" everywhere would garble messages.
_MIN_REMEMBERED = 6

_remembered: set[str] = set()


def looks_secret(name: str) -> bool:
    """Whether a header/field NAME says its value is a credential (Authorization, x-api-key, *token*...)."""
    return bool(_SECRET_NAME.search(name))


def _forms(secret: str) -> set[str]:
    # A server may echo the value JSON-escaped or URL-encoded; a Bearer header may be echoed without prefix.
    forms = {secret, json.dumps(secret)[1:-1], quote(secret, safe="")}
    scheme, _, token = secret.partition(" ")
    if token and scheme.lower() in ("bearer", "basic", "token"):
        forms |= {token, json.dumps(token)[1:-1], quote(token, safe="")}
    return {form for form in forms if form}


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every occurrence of each secret (and its escaped forms) replaced by <redacted>."""
    for secret in secrets:
        if not secret:
            continue
        # Longest form first, so a Bearer header is not half-replaced through its bare token.
        for form in sorted(_forms(secret), key=len, reverse=True):
            if form in text:
                text = text.replace(form, REDACTED)
    return text


def remember(secret: str | None) -> None:
    """Register a secret this process sends somewhere, so `scrub()` removes it from any text."""
    if secret and len(secret) >= _MIN_REMEMBERED:
        _remembered.add(secret)


def scrub(text: str) -> str:
    """`text` without any secret registered with `remember()` (for error lines, logs, stored errors)."""
    return redact(text, _remembered) if _remembered else text


def public_headers(headers: dict[str, str]) -> dict[str, str]:
    """Headers as a manifest may show them: secret-looking ones keep their name, lose their value."""
    return {name: (REDACTED if looks_secret(name) else value) for name, value in headers.items()}


def public_spec(spec: ModelSpec) -> ModelSpec:
    """A copy of `spec` that is safe to store (the run manifest): secret header values in
    `options["request"]["headers"]` are replaced by <redacted>. The original, which requests need, is kept."""
    request = spec.options.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("headers"), dict):
        return spec
    public = {**request, "headers": public_headers({str(k): str(v) for k, v in request["headers"].items()})}
    return spec.model_copy(update={"options": {**spec.options, "request": public}})
