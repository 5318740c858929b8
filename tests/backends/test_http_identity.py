"""The fingerprint (part of every cache key) tells apart what answers differently, and only that."""

from __future__ import annotations

import asyncio
import time

from mmgauge.backends import _identity
from mmgauge.backends.base import BackendSettings
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.backends.request_options import RequestOptions
from mmgauge.testing.server import FakeOpenAIServer, vllm_card


def started(backend: OpenAIBackend) -> OpenAIBackend:
    asyncio.run(backend.start())
    return backend


def test_two_servers_with_one_model_name_but_different_checkpoints_differ() -> None:
    with FakeOpenAIServer(answer=lambda t: "old") as old, FakeOpenAIServer(answer=lambda t: "new") as new:
        old.cards = [vllm_card("m", root="/ckpt/step-1000")]
        new.cards = [vllm_card("m", root="/ckpt/step-2000")]
        first = started(OpenAIBackend(old.base_url, "m"))
        second = started(OpenAIBackend(new.base_url, "m"))
        assert first.fingerprint() != second.fingerprint()
        # Even at the same address (a restarted server), the checkpoint it reports makes the difference.
        again = started(OpenAIBackend(old.base_url, "m"))
        old.cards = [vllm_card("m", root="/ckpt/step-2000")]
        restarted = started(OpenAIBackend(old.base_url, "m"))
        assert again.fingerprint() != restarted.fingerprint()
        assert restarted.describe()["served"][old.base_url]["served"]["root"] == "/ckpt/step-2000"
        assert old.models_requests == 3


def test_the_same_server_twice_gives_the_same_fingerprint_although_vllm_stamps_created() -> None:
    with FakeOpenAIServer() as server:
        server.stamp_created = False
        server.cards = [{**vllm_card("m"), "created": int(time.time())}]
        first = started(OpenAIBackend(server.base_url, "m"))
        server.cards = [{**vllm_card("m"), "created": int(time.time()) + 3600}]  # vLLM: the time of asking
        second = started(OpenAIBackend(server.base_url, "m"))
        assert first.fingerprint() == second.fingerprint()
        assert "created" not in first.describe()["served"][server.base_url]["served"]


def test_a_server_without_a_model_listing_still_works() -> None:
    with FakeOpenAIServer() as server:
        server.cards = None  # GET /v1/models answers 404
        backend = started(OpenAIBackend(server.base_url, "m"))
        assert "HTTP 404" in backend.describe()["served"][server.base_url]["error"]
        # URL + name (+ namespace): the same as a backend that never asked.
        assert backend.fingerprint() == OpenAIBackend(server.base_url, "m").fingerprint()
        assert backend.fingerprint() != OpenAIBackend(server.base_url, "other").fingerprint()
        assert backend.fingerprint() == OpenAIBackend(server.base_url + "/", "m").fingerprint()  # normalised
        assert backend.fingerprint() != OpenAIBackend(server.root_url + "/v2", "m").fingerprint()
        named = OpenAIBackend(server.base_url, "m", settings=BackendSettings(cache_namespace="ckpt-2"))
        assert started(named).fingerprint() != backend.fingerprint()
        assert named.describe()["cache_namespace"] == "ckpt-2"


def test_an_unreachable_server_at_start_is_recorded_not_raised() -> None:
    backend = started(OpenAIBackend("http://127.0.0.1:9/v1", "m"))
    served = backend.describe()["served"]["http://127.0.0.1:9/v1"]
    assert "error" in served and "Connect" in served["error"]


def test_describe_says_when_start_was_not_awaited() -> None:
    assert "not asked" in OpenAIBackend("http://x/v1", "m").describe()["served"]


def test_model_cards_keep_only_stable_fields() -> None:
    now = 1_750_000_000.0
    vllm = {**vllm_card("m", "/ckpt/a"), "created": 1_700_000_000, "permission": [{"id": "modelperm-x"}]}
    assert _identity.card_identity(vllm, asked_at=now) == {
        "id": "m", "owned_by": "vllm", "root": "/ckpt/a", "max_model_len": 4096,
    }  # vLLM's created is the request time, whatever its value; permission holds a random id
    ollama = {"id": "llava:latest", "object": "model", "created": 1_712_000_000, "owned_by": "library"}
    assert _identity.card_identity(ollama, asked_at=now) == {
        "id": "llava:latest", "created": 1_712_000_000, "owned_by": "library",
    }  # Ollama's created is when the tag was pulled: a re-pull must change the fingerprint
    unknown_server = {"id": "m", "created": int(now) - 2, "owned_by": "someone"}
    assert "created" not in (_identity.card_identity(unknown_server, asked_at=now) or {})
    assert _identity.card_identity({"no": "id"}) is None
    listing = {"data": [ollama, {"id": "other"}]}
    assert _identity.find_card(listing, "llava") is ollama
    assert _identity.find_card(listing, "missing") is None and _identity.find_card([], "m") is None


def test_an_ollama_re_pull_changes_the_fingerprint() -> None:
    with FakeOpenAIServer() as server:
        server.stamp_created = False
        card = {"id": "llava:latest", "object": "model", "created": 1_712_000_000, "owned_by": "library"}
        server.cards = [card]
        before = started(OpenAIBackend(server.base_url, "llava"))
        server.cards = [{**server.cards[0], "created": 1_713_000_000}]
        after = started(OpenAIBackend(server.base_url, "llava"))
        assert before.fingerprint() != after.fingerprint()


def test_request_options_are_part_of_the_identity_but_secret_values_are_not() -> None:
    def fingerprint(**options: object) -> str:
        return OpenAIBackend("http://x/v1", "m", request=RequestOptions.model_validate(options)).fingerprint()

    plain = fingerprint()
    assert fingerprint(extra_body={"top_k": 20}) != plain
    assert fingerprint(extra_body={"top_k": 20}) != fingerprint(extra_body={"top_k": 40})
    assert fingerprint(headers={"X-Route": "a"}) != fingerprint(headers={"X-Route": "b"})
    assert fingerprint(max_completion_tokens=True) != plain
    # A different key is the same model; only the header's presence is recorded.
    assert fingerprint(headers={"X-Api-Key": "one"}) == fingerprint(headers={"X-Api-Key": "two"})
    assert fingerprint(headers={"X-Api-Key": "one"}) != plain
