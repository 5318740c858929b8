"""Benchmark sections: M3GIA factors without data, MME's yes share, charts without matplotlib, all images."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from PIL import Image

from mmgauge.core.types import ImageRef
from mmgauge.parts.report import plots
from mmgauge.report import build_report
from mmgauge.report.browser import build_browser
from mmgauge.report.images import ImageIndex
from mmgauge.report.load import load_runs


def _copy(run: Path, dest: Path) -> Path:
    shutil.copytree(run, dest, ignore=shutil.ignore_patterns("sample-data"))
    return dest


def _png(color: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), color).save(out, format="PNG")
    return out.getvalue()


def test_m3gia_factor_without_data_is_left_out_of_the_radar(runs: tuple[Path, Path], tmp_path: Path) -> None:
    run = _copy(runs[1], tmp_path / "run")
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    if "m3gia" not in results["benchmarks"]:
        pytest.skip("M3GIA is not registered in this checkout")
    languages = results["benchmarks"]["m3gia"]["result"]["per_language"]
    first = next(iter(languages))
    del languages[first]["factors"]["Gq"]
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    html = build_report([run], images=False).html
    assert "the radar leaves them out (they are not 0%)" in html and f"{first}: Gq." in html
    # Every language but one has Gq: the axis keeps its plain label.
    assert "(no data)" not in html


def test_radar_skips_missing_values_and_labels_empty_axes() -> None:
    svg = plots.radar(["a", "b", "c", "d"], {"x": [0.5, None, 0.2, None], "y": [0.4, None, None, 0.1]},
                      title="t")
    encoded = re.search(r'base64,([^"]+)', svg)
    assert encoded is not None
    text = base64.b64decode(encoded[1]).decode()
    assert text.count("(no data)") == 1  # only axis b has no value in any series


def test_mme_yes_share_is_over_answers_read_as_yes_or_no(runs: tuple[Path, Path]) -> None:
    yes = build_report([runs[0]], images=False).html
    assert "of the answers read as yes or no, 100% were &#x27;yes&#x27;" in yes
    assert "yes among yes/no answers" in yes
    letters = build_report([runs[1]], images=False).html  # "A" to everything: no answer reads as yes or no
    start = letters.index('id="run1-mme"')
    section = letters[start:letters.index("</section>", start)]
    assert "were &#x27;no&#x27;" not in section and "answered &#x27;no&#x27;" not in section
    assert "yes among yes/no answers" not in section
    assert re.search(r"\d+ of \d+ answers were read as neither yes nor no", section)
    assert "unreadable answers" in section


def test_charts_missing_leave_a_note(runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)
    html = build_report([runs[0]], images=False).html
    assert '<img class="chart"' not in html
    hint = "charts need the &#x27;report&#x27; extra: pip install &#x27;mmgauge[report]&#x27;"
    assert html.count(hint) >= 2


def test_browser_shows_every_image_of_a_sample(runs: tuple[Path, Path]) -> None:
    views = load_runs([runs[0]])
    row = next(iter(views[0].benchmarks.values())).rows[0]
    images = ImageIndex()
    pictures = [ImageRef(data=_png("red")), ImageRef(data=b"not an image"), ImageRef(data=_png("blue"))]
    images.refs[(0, row.benchmark, row.sample_id)] = pictures
    data = build_browser(views, images)
    index = json.loads(re.sub(r"^<script[^>]*>|</script>$", "", data.blocks[0]))
    assert index["img"][0] == [0, 1] and set(index["img"][1:]) == {-1}  # the undecodable one is left out
    assert len([b for b in data.blocks if 'id="mmg-img-' in b]) == 2
    assert any("1 images could not be decoded" in note for note in data.notes)


def test_m3gia_cards_show_the_gia_interval_with_its_n() -> None:
    from mmgauge.benchmarks.m3gia.data import answer_table, factor_table
    from mmgauge.benchmarks.m3gia.report import _cards
    from mmgauge.benchmarks.m3gia.scoring import Item, score_items
    from mmgauge.parts.report.views import BenchView

    truths, factors = answer_table("english"), factor_table("english")
    result = score_items([Item("english", qid, truth.question_type, factors.get(qid, ()), 0,
                               int(qid) % 3 > 0) for qid, truth in truths.items()])
    gia = result.per_language["english"].gia
    assert gia is not None and gia.gia_ci is not None
    cards = {card.label: card.ci for card in _cards(BenchView("m3gia", result=result.model_dump()))}
    expected = f"95% CI {gia.gia_ci.low:.2f}–{gia.gia_ci.high:.2f}, n=300 · "
    assert (cards["GIA english"] or "").startswith(expected)
    assert (cards["M3GIA english"] or "").endswith(", n=300")


def test_mme_cards_of_a_total_with_nothing_answered_say_so_not_zero(tmp_path: Path) -> None:
    from mmgauge.benchmarks.mme.bench import MMEBenchmark
    from mmgauge.benchmarks.mme.report import _cards
    from mmgauge.core.types import ModelResponse, SampleRecord
    from mmgauge.parts.report.views import BenchView

    bench = MMEBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    records = [SampleRecord(benchmark="mme", sample_id=s.id, fingerprint="m", prompt=s.question,
                            response=ModelResponse(text="yes") if s.metadata["subtask"] == "OCR"
                            else ModelResponse(error="HTTP 500"),
                            extraction=bench.extract(s, "yes") if s.metadata["subtask"] == "OCR" else None,
                            target=s.answer, correct=None, metadata=bench.record_metadata(s))
               for s in dataset.samples]
    result = bench.score(records).model_dump()
    cards = {card.label: card.value for card in _cards(BenchView("mme", result=result))}
    assert cards["MME cognition"] == "nothing scored yet"
    assert cards["MME perception"].endswith(" / 2000 (partial)")  # OCR answered: a number, though partial
