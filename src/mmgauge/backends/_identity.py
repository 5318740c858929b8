"""What an endpoint says it serves, reduced to the fields that identify a model and stay put between runs.

The model name alone is not an identity: vLLM serves a new checkpoint under the old `--served-model-name`,
an Ollama tag is re-pulled, and the cache would hand back the old model's answers. So the fingerprint also
takes the endpoint addresses, these fields from the model listing, and the user's `cache_namespace`.

What the servers put in a model card (read in their sources):

- vLLM (`vllm/entrypoints/openai/protocol.py` ModelCard, filled in `serving_models.py`): `id` (served name),
  `root` (the model path or repo id it loaded), `parent` (the base model of a LoRA adapter), `max_model_len`,
  `owned_by: "vllm"`. `created` is `Field(default_factory=lambda: int(time.time()))`: the time of the
  /models request, different on every call, so it must not enter a cache key; `permission` holds a fresh
  random id each time.
- SGLang (`sglang/srt/entrypoints/openai/protocol.py`): the same card shape and the same request-time
  `created`; `root` is the model path.
- LMDeploy: the same card, `owned_by: "lmdeploy"`, request-time `created`.
- Ollama (`openai/openai.go` ToListCompletion): `created` is the model's `ModifiedAt`, stable until the tag
  is pulled or created again, which is exactly the change to notice; `owned_by` is the namespace.
- OpenAI and Anthropic (`GET /v1/models/{id}`, `created_at`): fixed release dates.
- Gemini (`GET /v1beta/models/{model}`): `name` (read as the id) and `version`, fixed for a model id.

So `created` counts unless the server is one of those that stamp the request time, or the value is within a
few minutes of our own clock (which catches other servers built on the same card).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mmgauge.backends._http_io import BodyError, read_body, snippet

if TYPE_CHECKING:
    import aiohttp

#: Card fields that identify what is served and do not change between requests.
STABLE_FIELDS = ("id", "root", "parent", "owned_by", "max_model_len", "created", "created_at", "version")

#: `owned_by` values of servers whose `created` is the time of the request (see the module docstring).
REQUEST_TIME_CREATED = frozenset({"vllm", "sglang", "lmdeploy"})

#: A `created` this close to our clock is taken for a request-time stamp.
CLOCK_WINDOW_S = 300.0


def card_identity(card: Any, *, asked_at: float | None = None) -> dict[str, Any] | None:
    """The stable fields of one model card (a JSON object), or None if it is not one."""
    if not isinstance(card, dict) or not isinstance(card.get("id"), str):
        return None
    identity = {
        name: card[name]
        for name in STABLE_FIELDS
        if isinstance(card.get(name), str | int | float) and not isinstance(card.get(name), bool)
    }
    created = identity.get("created")
    if created is not None:
        now = time.time() if asked_at is None else asked_at
        request_time = str(card.get("owned_by", "")).lower() in REQUEST_TIME_CREATED
        if request_time or not isinstance(created, int | float) or abs(created - now) < CLOCK_WINDOW_S:
            del identity["created"]
    return identity


def find_card(listing: Any, model: str) -> Any:
    """The card for `model` in an OpenAI-style listing ({"data": [...]}); None if it is not listed."""
    entries = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(entries, list):
        return None
    wanted = {model, f"{model}:latest"}  # Ollama lists "llava" as "llava:latest"
    return next((e for e in entries if isinstance(e, dict) and e.get("id") in wanted), None)


def fingerprint(provider: str, model: str, identity: dict[str, Any]) -> str:
    """`provider:model@digest`: readable, and different whenever anything in `identity` differs."""
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"{provider}:{model}@{hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:16]}"


async def ask(
    session: aiohttp.ClientSession,
    url: str | None,
    *,
    model: str,
    pick: Callable[[Any], Any],
    limit: int,
    redact: Callable[[str], str],
) -> dict[str, Any]:
    """{"served": identity} from the model card at `url` (`pick` finds it in the reply), or {"error": why}."""
    import aiohttp

    if url is None:
        return {"error": "this endpoint has no model card"}
    asked_at = time.time()
    try:
        async with session.get(url) as reply:
            raw = await read_body(reply, limit)
            status = reply.status
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError, BodyError) as error:
        return {"error": redact(f"{type(error).__name__}: {error}")}
    if status != 200:
        return {"error": redact(f"HTTP {status}: {snippet(raw, 120)}")}
    try:
        listing = json.loads(raw)
        card = pick(listing)
    except ValueError:
        return {"error": "the model card is not JSON"}
    identity = card_identity(card, asked_at=asked_at)
    if identity is None and isinstance(listing, dict) and isinstance(listing.get("data"), list):
        return {"error": f"'{model}' is not in the model listing", "listed": listed_ids(listing)}
    if identity is None:
        return {"error": f"'{model}' is not in the model listing"}
    return {"served": identity}


async def ask_all(
    urls: list[str | None], *, headers: dict[str, str], timeout_s: float, **ask_args: Any
) -> list[dict[str, Any]]:
    """`ask` each model card URL at once, in one session."""
    import aiohttp

    timeout = aiohttp.ClientTimeout(total=timeout_s)
    async with aiohttp.ClientSession(timeout=timeout, headers=headers, auto_decompress=False) as session:
        return list(await asyncio.gather(*(ask(session, url, **ask_args) for url in urls)))


def distinct_served(served: dict[str, dict[str, Any]]) -> list[Any]:
    """The distinct identities the endpoints reported, in a stable order."""
    texts = {json.dumps(found["served"], sort_keys=True) for found in served.values() if "served" in found}
    return [json.loads(text) for text in sorted(texts)]


def listed_ids(listing: dict[str, Any], most: int = 20) -> list[str]:
    """The first `most` model ids of an OpenAI-style listing."""
    ids = [e.get("id") for e in listing["data"] if isinstance(e, dict)]
    return [i for i in ids if isinstance(i, str)][:most]


def unlisted_notice(served: dict[str, dict[str, Any]], model: str) -> list[str]:
    """One warning naming the endpoints whose model listing lacks `model` (none when every listing has it).

    Many servers (llama.cpp, some gateways) answer whatever model name a request carries: a misspelt name
    passes, and the answers come from whatever they serve.
    """
    missing = {url: found["listed"] for url, found in served.items() if "listed" in found}
    if not missing:
        return []
    listed = sorted({name for names in missing.values() for name in names})
    lists = f"it lists {', '.join(listed)}" if listed else "its listing is empty"
    return [f"{', '.join(missing)} does not list model '{model}' ({lists}); a server that answers any "
            "model name answers with the model it has"]
