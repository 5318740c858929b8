"""The embedded default through the whole pipeline: real OCR and text model on the built-in MME sample."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends.base import Request
from mmgauge.backends.embedded import EmbeddedBackend, engine_input
from mmgauge.core.types import GenerationConfig, ImageRef, Message

pytest.importorskip("torch")
pytest.importorskip("rapidocr")


def test_engine_input_joins_text_and_keeps_images() -> None:
    request = Request(
        messages=[Message.system("be brief"), Message.user("Is it red?", [ImageRef(data=b"png")])],
        config=GenerationConfig(system_prompt="global"),
    )
    item = engine_input(request)
    assert item.system == "global\nbe brief" and item.text == "Is it red?" and item.images == [b"png"]


@pytest.mark.slow
def test_on_the_mme_sample_it_says_yes_where_the_ocr_text_holds_the_asked_name(tmp_path: Path) -> None:
    """Posters, celebrities and artworks: each image shows the name one of its two questions asks about."""
    from mmgauge.backends._embedded_engine import check_installed
    from mmgauge.benchmarks.mme.bench import MMEBenchmark
    from mmgauge.core.errors import UserError

    try:
        check_installed()
    except UserError as missing:
        pytest.skip(str(missing))
    mme = MMEBenchmark()
    samples = [sample for sample in mme.load(mme.sample_data(tmp_path)).samples
               if sample.id.split("/")[0] in ("posters", "celebrity", "artwork")]
    requests = [Request(messages=mme.build_messages(sample), config=GenerationConfig(),
                        choices=mme.answer_choices(sample)) for sample in samples]
    responses = asyncio.run(EmbeddedBackend(threads=2).generate(requests))
    said = [mme.extract(sample, response.text or "").answer
            for sample, response in zip(samples, responses, strict=True)]
    truths = [sample.answer for sample in samples]
    yes_where_yes = [answer == "yes" for answer, truth in zip(said, truths, strict=True) if truth == "yes"]
    yes_where_no = [answer == "yes" for answer, truth in zip(said, truths, strict=True) if truth == "no"]
    assert len(samples) == 12 and all(response.choice_scores for response in responses)
    assert sum(yes_where_yes) > sum(yes_where_no), said  # not always "no", and not blind either


def test_embedded_run_on_the_mme_sample(cli: Any, tmp_path: Path) -> None:
    from mmgauge.backends._embedded_engine import check_installed
    from mmgauge.core.errors import UserError

    try:
        check_installed()
    except UserError as missing:
        pytest.skip(str(missing))
    out = tmp_path / "run"
    result = cli("run", "--bench", "mme", "--limit", "4", "--out", out, "--cache-path", tmp_path / "c.sqlite")
    assert result.code == 0, result.out + result.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"]["backend"] == "embedded"
    assert manifest["model_fingerprint"].startswith("embedded:")
    records = [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]
    assert len(records) == 4
    for record in records:  # yes/no questions: chosen among the allowed answers, nothing generated
        assert record["response"]["error"] is None
        assert record["response"]["text"] in ("Yes", "No")
        assert record["response"]["usage"]["completion_tokens"] == 0
        assert [score["answer"] for score in record["response"]["choice_scores"]] == ["Yes", "No"]
    again = cli(
        "run",
        "--bench",
        "mme",
        "--limit",
        "4",
        "--out",
        tmp_path / "again",
        "--cache-path",
        tmp_path / "c.sqlite",
    )
    assert again.code == 0
    assert (
        json.loads((tmp_path / "again" / "results.json").read_text())["benchmarks"]["mme"]["cache_hits"] == 4
    )
    # The demo says what it is: built-in sample data and a baseline model, not a VLM.
    results = json.loads((tmp_path / "again" / "results.json").read_text())
    assert results["labels"] == ["sample data", "baseline"]
    assert "note: baseline model: OCR + SmolLM2-135M" in again.out.replace("\n", " ")
