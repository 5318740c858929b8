"""The `MODEL@URL|URL|...` grammar of every HTTP backend, owned here once.

`HTTPBackend.read_spec` reads the spec of every backend built on it with `endpoint_spec` (the built-in
`openai:`, `anthropic:` and `gemini:`, and any plug-in), and `HTTPBackend.from_spec` checks the endpoints of
whatever spec it is given (a model config file's too) with `spec_endpoints`, so every HTTP backend has the
same endpoints and the same one-line error for a bad URL, before any request is sent.
"""

from __future__ import annotations

from typing import Any

from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelSpec

#: What separates the endpoints of one model in a spec.
SEPARATOR = "|"


def check_url(url: str) -> str:
    """`url` if it is an http(s) URL with a host (and a numeric port, if any); else a one-line UserError.

    aiohttp would refuse such a URL only when the first request is sent, once per request.
    """
    from urllib.parse import urlsplit

    if not url.startswith(("http://", "https://")):
        raise UserError(f"endpoint '{url}' must start with http:// or https://", field="--model")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as error:
        raise UserError(f"endpoint '{url}' is not a valid URL: {error}", field="--model") from None
    if not parts.hostname or any(c.isspace() or c == SEPARATOR for c in url):
        raise UserError(f"endpoint '{url}' is not a valid URL", field="--model")
    return url


def split_urls(text: str) -> list[str]:
    """The endpoints of `URL|URL|...`, each checked; a UserError if there is none or one is not a URL."""
    urls = [url.strip() for url in text.split(SEPARATOR) if url.strip()]
    if not urls:
        raise UserError(f"'{text}' names no URL", field="--model")
    return [check_url(url) for url in urls]


def endpoint_spec(name: str, rest: str, default_base_url: str | None) -> ModelSpec:
    """The spec `NAME:MODEL@URL|URL|...`. Without a default URL the last @ starts the URLs (a malformed one
    is named); with one, only a trailing `@http(s)://...` does, so a model id may hold an @ (Vertex style)."""
    model, at, url = rest.rpartition("@")
    if default_base_url is None:
        if not at or not model or not url:
            raise UserError(f"'{name}:{rest}' is not of the form {name}:MODEL@BASE_URL", field="--model")
    elif not at or not url.startswith(("http://", "https://")):
        model, url = rest, default_base_url  # no URL, or an @ inside the model id
    if not model:
        raise UserError(f"'{name}:{rest}' is not of the form {name}:MODEL[@URL]", field="--model")
    urls = split_urls(url)
    options: dict[str, Any] = {"base_urls": urls} if len(urls) > 1 else {}
    return ModelSpec(backend=name, model=model, base_url=urls[0], options=options)


def spec_endpoints(spec: ModelSpec, provider: str, default_base_url: str | None) -> tuple[list[str], str]:
    """The base URLs (`@URL|URL`, `options.base_urls` or the provider's default) and the model of an HTTP
    model spec, each checked; the spec's only other option is `request`."""
    urls = spec.options.get("base_urls")
    if urls is None:
        base = spec.base_url or default_base_url
        urls = split_urls(base) if base else []
    if not isinstance(urls, list) or not all(isinstance(u, str) for u in urls):
        raise UserError("base_urls must be a list of URLs", field="options.base_urls")
    unknown = sorted(set(spec.options) - {"base_urls", "request"})
    if unknown:
        raise UserError(f"unknown {provider} option(s): {', '.join(unknown)}", field="options")
    if not urls or not spec.model:
        raise UserError(f"the {provider} backend needs a model and a base URL: {provider}:MODEL@URL",
                        field="--model")
    return [check_url(url) for url in urls], spec.model
