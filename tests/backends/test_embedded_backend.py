"""The embedded default through the whole pipeline: real OCR and text model on the built-in MME sample."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends.base import Request
from mmgauge.backends.embedded import MAX_NEW_TOKENS_CAP, engine_input
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
    for record in records:
        assert record["response"]["error"] is None
        assert isinstance(record["response"]["text"], str)
        assert 0 < record["response"]["usage"]["completion_tokens"] <= MAX_NEW_TOKENS_CAP
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
