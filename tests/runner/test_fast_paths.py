"""Equivalence of the runner's fast paths with the straightforward computations they replace."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from mmgauge.backends.base import Request
from mmgauge.benchmarks.base import AnyBenchmark
from mmgauge.core.types import GenerationConfig, ImagePart, ImageRef, Message, Sample
from mmgauge.runner.images import ImageLedger
from mmgauge.runner.run import _Work, group_by_image
from mmgauge.store.cache import CACHE_SCHEMA, config_part, request_fingerprint
from mmgauge.store.run_folder import RunFolder
from mmgauge.testing.toy import ToyBenchmark, tiny_png


def _reference_fingerprint(model: str, config: GenerationConfig, messages: list[Message]) -> str:
    """The cache key as first written: the config dumped for every request."""
    content = [
        [m.role, [("image", hashlib.sha256(p.image.load()).hexdigest()) if isinstance(p, ImagePart)
                  else ("text", p.text) for p in m.content]]
        for m in messages
    ]
    payload = json.dumps([CACHE_SCHEMA, model, config.model_dump(mode="json"), content],
                         ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def test_fingerprint_matches_the_reference_for_every_config(tmp_path: Path) -> None:
    png = tiny_png(3)
    (tmp_path / "a.png").write_bytes(png)
    configs = [
        GenerationConfig(), GenerationConfig(max_tokens=8), GenerationConfig(temperature=1, top_p=1),
        GenerationConfig(seed=None, system_prompt="système ✓\u2028"), GenerationConfig(seed=7),
        GenerationConfig.model_construct(temperature=1, max_tokens=True),  # equal to others (1 == True)
    ]
    messages = [
        [Message.user("q ü", [ImageRef(path=str(tmp_path / "a.png"))])],
        [Message.system("s"),
         Message.user("", [ImageRef(data=png), ImageRef(b64=base64.b64encode(png).decode())])],
        [Message.user("text only")],
    ]
    for config in configs:
        part = config_part(config)
        for sent in messages:
            assert request_fingerprint("m", part, sent) == _reference_fingerprint("m", config, sent)


def test_image_hash_is_memoised_and_right(tmp_path: Path) -> None:
    png = tiny_png(5)
    (tmp_path / "i.png").write_bytes(png)
    expected = hashlib.sha256(png).hexdigest()
    for image in (ImageRef(data=png), ImageRef(b64=base64.b64encode(png).decode()),
                  ImageRef(path=str(tmp_path / "i.png")), ImageRef.model_construct(data=png)):
        assert image.sha256() == expected
        assert image.sha256() == expected


def _works(images: list[str | None], tmp_path: Path) -> list[_Work]:
    bench: AnyBenchmark = ToyBenchmark()
    out = []
    for index, name in enumerate(images):
        refs = [] if name is None else [ImageRef(data=tiny_png(int(name)))]
        sample = Sample(id=f"s{index}", benchmark="toy", question=f"q{index}", images=refs)
        request = Request(messages=bench.build_messages(sample), config=GenerationConfig())
        out.append(_Work(bench, sample, 0, request, f"f{index}"))
    return out


def _reference_grouping(works: list[_Work]) -> list[str]:
    """Group by first image in order of first appearance; requests without images stay where they are."""
    groups: dict[object, list[str]] = {}
    for index, work in enumerate(works):
        images = [p.image for m in work.request.messages for p in m.content if isinstance(p, ImagePart)]
        key = hashlib.sha256(images[0].load()).hexdigest() if images else index
        groups.setdefault(key, []).append(work.sample.id)
    return [sample_id for ids in groups.values() for sample_id in ids]


def test_group_by_image_keeps_everything_and_groups(tmp_path: Path) -> None:
    cases: list[list[str | None]] = [
        [], ["1"], ["1", "2", "1", "2"], ["1", "1", "2", "2"], [None, "1", None, "2", "1", None],
        ["3", "3", "3"], [None, None], ["1", "2", "3", "1", "2", "3", "1"],
    ]
    for images in cases:
        works = _works(images, tmp_path)
        grouped = group_by_image(works)
        assert sorted(w.sample.id for w in grouped) == sorted(w.sample.id for w in works)
        assert [w.sample.id for w in grouped] == _reference_grouping(works)
    already = _works(["1", "1", None, "2", "2", "3"], tmp_path)
    assert group_by_image(already) == already  # adjacent questions keep the dataset's order


def test_image_refs_are_shared_per_file_and_equal_to_fresh_ones(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(tiny_png(1))
    ledger = ImageLedger(RunFolder(tmp_path / "run"))
    first = ledger.refs([ImageRef(path=str(tmp_path / "a.png")), ImageRef(data=tiny_png(2))])
    second = ledger.refs([ImageRef(path=str(tmp_path / "a.png"))])
    assert first[0] is second[0]
    assert first[0].path == str((tmp_path / "a.png").resolve())
    assert first[0].sha256 == hashlib.sha256(tiny_png(1)).hexdigest()
    assert first[1].path is None and first[1].sha256 == hashlib.sha256(tiny_png(2)).hexdigest()
    embedded = ledger.refs([ImageRef(b64=base64.b64encode(tiny_png(2)).decode())])[0]
    assert embedded is first[1]  # one reference per embedded image too, however it came


def test_prepared_image_refs_equal_the_ones_made_on_demand(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.png").write_bytes(tiny_png(1))
    (tmp_path / "link.png").symlink_to(tmp_path / "d" / "a.png")
    images = [ImageRef(path=str(tmp_path / "d" / ".." / "d" / "a.png")),
              ImageRef(path=str(tmp_path / "link.png")), ImageRef(data=tiny_png(2))]
    prepared = ImageLedger(RunFolder(tmp_path / "run"))
    prepared.prepare(images)
    on_demand = ImageLedger(RunFolder(tmp_path / "run2"))
    assert prepared.refs(images) == on_demand.refs(images)
    assert {ref.path for ref in on_demand.refs(images)} == {str((tmp_path / "d" / "a.png").resolve()), None}
