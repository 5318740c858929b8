"""The `MODEL@URL|URL|...` grammar of every HTTP backend, owned here once.

`spec.py` reads the built-in `openai:`, `anthropic:` and `gemini:` specs with it, and
`HTTPBackend.from_spec` applies it again to whatever spec it is given, so a plug-in backend built on
`HTTPBackend` (whose spec `spec.py` only splits at the last @) gets the same endpoints, and the same one-line
error for a bad URL, before any request is sent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mmgauge.core.errors import UserError

if TYPE_CHECKING:
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
