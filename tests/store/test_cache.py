from __future__ import annotations

import base64
from pathlib import Path

from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse
from mmgauge.store.cache import ResponseCache, request_fingerprint
from mmgauge.testing.toy import tiny_png


def test_fingerprint_depends_on_model_config_text_and_image_content() -> None:
    config = GenerationConfig()
    png = tiny_png(1)
    a = [Message.user("q", [ImageRef(data=png)])]
    same_image_other_form = [Message.user("q", [ImageRef(b64=base64.b64encode(png).decode())])]
    other_image = [Message.user("q", [ImageRef(data=tiny_png(2))])]
    base = request_fingerprint("m", config, a)
    assert base == request_fingerprint("m", config, same_image_other_form)
    assert base != request_fingerprint("m", config, other_image)
    assert base != request_fingerprint("m2", config, a)
    assert base != request_fingerprint("m", GenerationConfig(max_tokens=7), a)
    assert base != request_fingerprint("m", config, [Message.user("q2", [ImageRef(data=png)])])


def test_put_get_stats_clear(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k1", ModelResponse(text="yes"), model="m")
    cache.put("k2", ModelResponse(error="HTTP 500"), model="m")  # failures are never cached
    hit = cache.get("k1")
    assert hit is not None and hit.text == "yes" and hit.cached
    assert cache.get("k2") is None
    assert cache.stats().entries == 1
    assert cache.stats().models == {"m": 1}
    assert cache.clear() == 1
    assert cache.get("k1") is None
    journal = cache._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert journal == "wal"


def test_batches_committed_behind_stay_readable_and_reach_the_file(tmp_path: Path) -> None:
    from mmgauge.store.cache import PUT_BATCH

    cache = ResponseCache(tmp_path / "c.sqlite")
    count = PUT_BATCH * 3 + 7
    keys = [f"k{i}" for i in range(count)]
    with cache.writing_behind():
        for i in range(count):
            cache.put(f"k{i}", ModelResponse(text=f"answer {i} ü"), model="m")
            if i % 97 == 0:  # reads see every put at once, whether buffered, being committed or committed
                assert cache.get(f"k{i}") is not None
        assert len(cache.get_many(keys)) == count
    assert cache._inflight is None  # the block's end waited for the writer
    cache.close()
    reopened = ResponseCache(tmp_path / "c.sqlite")
    found = reopened.get_many(keys)
    assert {key: hit.text for key, hit in found.items()} == {f"k{i}": f"answer {i} ü" for i in range(count)}
    assert reopened.stats().entries == count
    reopened.close()
