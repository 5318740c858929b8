from __future__ import annotations

import base64
from pathlib import Path

from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse
from mmgauge.store.cache import ResponseCache, config_part, request_fingerprint
from mmgauge.testing.toy import tiny_png


def test_fingerprint_depends_on_model_config_text_and_image_content() -> None:
    config = config_part(GenerationConfig())
    png = tiny_png(1)
    a = [Message.user("q", [ImageRef(data=png)])]
    same_image_other_form = [Message.user("q", [ImageRef(b64=base64.b64encode(png).decode())])]
    other_image = [Message.user("q", [ImageRef(data=tiny_png(2))])]
    base = request_fingerprint("m", config, a)
    assert base == request_fingerprint("m", config, same_image_other_form)
    assert base != request_fingerprint("m", config, other_image)
    assert base != request_fingerprint("m2", config, a)
    assert base != request_fingerprint("m", config_part(GenerationConfig(max_tokens=7)), a)
    assert base != request_fingerprint("m", config, [Message.user("q2", [ImageRef(data=png)])])


#: Keys made by the cache before the config part was handed in (its identity memo, `main` at 7ef8ba7), for
#: KEY_MESSAGES under each of KEY_CONFIGS: every cached answer and resumed record depends on them.
OLD_KEYS = [
    ["53019b28f7d78340c3300624e8ea367618a5d4d17a798b3cee6c82dd4145525b",
     "8f076fddd927154a1467ef3200cba7724e3058f7855f7ccb3c2c7dd690259113",
     "1a604a28812919075d17119036413d976478b02cdb72d28c50a9410b691a24a4"],
    ["23f5b840f2634c5602e7ac7ae266577fcebae0500efc2c1f0d76f504a7fa53fb",
     "c244c94987a33022b71d14a12154e6b84b7dab24e5f2eefe5eceae1b34a83c9a",
     "a62bdaa725e83a413c242a4d0aa067862b80d920b8f39cb9c6b1390244ebbb34"],
    ["8e0323a2258bf7123f8ef4d62d90afc03fe3d46ed7df79e9dbb7ad3c9f0b3855",
     "2d732bd41fd84a364e15308fba24acaa5150e35f16d6b4ad7ad55e1ed9f6e1e5",
     "b53b9c1976d23264165b8d4c0e677d392fe71e2686ddde04a6c6fb1b87f86570"],
    ["4f87d566e1563a3e74a849ff4946e39feb75392928c5850ed278cb10a66a3b72",
     "c46db4e47aaa65b10ba50012eb9b02e24847eb354ed380df3d97ce8fc5ceac11",
     "159530b528d40602c8e8f918c30425f9cc7d540e84b31ab8b57523fe7b5bd606"],
    ["ce4fc473a1ea38c6a3a8017cb7ee1b44d70977bccdd794093840242dee08e689",
     "70089e48d80443c6a58ab2630d2612fb397dcdfab8c8f2bf24af0cf2e5829d54",
     "aeecc901520c68df92c83a93fad81b0ca4487077fc6b5447e0af60c6a88c6e84"],
    ["bf3ee36d341da04365d568b06b7f3ae406cb413eea4299ea956e5093a69d5b8b",
     "8fd5d23722e9607f382f9249f53d8e3da407e3709da714e440afee3a2a1bab38",
     "75a4a0e507a911e275be0eb4b4ff99ded0699499b3cd7fa21ab838af14ff825f"],
]


def test_keys_are_the_ones_the_cache_made_before() -> None:
    configs = [GenerationConfig(), GenerationConfig(max_tokens=8), GenerationConfig(temperature=1, top_p=1),
               GenerationConfig(seed=None, system_prompt="système ✓\u2028"), GenerationConfig(seed=7),
               GenerationConfig(temperature=0.0, max_tokens=32, seed=0)]  # the last is the judge's
    other = base64.b64encode(tiny_png(4)).decode()
    messages = [[Message.user("q ü", [ImageRef(data=tiny_png(3))])],
                [Message.system("s"), Message.user("", [ImageRef(data=tiny_png(3)), ImageRef(b64=other)])],
                [Message.user("text only")]]
    keys = [[request_fingerprint("model-fp", config_part(config), sent) for sent in messages]
            for config in configs]
    assert keys == OLD_KEYS


def test_the_judge_keys_its_questions_as_before(tmp_path: Path) -> None:
    import asyncio

    from mmgauge.backends.mock import MockBackend
    from mmgauge.extraction.judge import Judge

    cache = ResponseCache(tmp_path / "c.sqlite")
    judge = Judge(MockBackend("A"), cache)
    asyncio.run(judge.ask("text only"))
    cache.flush()
    keys = [row[0] for row in cache._db.execute("SELECT key FROM responses")]
    assert keys == ["4b16c6743f7d4fb24789e973fd1f9ca846b419fe2eb4bc83ba73dd31aebfb07f"]  # made by main


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
