"""M3GIA prompt presets: only the paper's; VLMEvalKit and lmms-eval have no M3GIA (checked in
open-compass/VLMEvalKit@9ede1af0143acf7d4c2e41858ffe1624c5f42bf8 vlmeval/dataset and
EvolvingLMMs-Lab/lmms-eval@161c7a170643a0d71c24312251d35f7b490d2925 lmms_eval/tasks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.m3gia.bench import M3GIABenchmark, M3GIAOptions
from mmgauge.benchmarks.m3gia.prompts import PRESETS, TABLE
from mmgauge.benchmarks.presets import PromptFields
from mmgauge.core.errors import UserError


@pytest.mark.parametrize("native", [False, True])
def test_paper_preset_messages_equal_the_benchmarks_messages(native: bool, tmp_path: Path) -> None:
    bench = M3GIABenchmark(M3GIAOptions(prompt_language="native" if native else None))
    dataset = bench.load(bench.sample_data(tmp_path))
    for sample in dataset.samples:
        language = str(sample.metadata["language"]) if native else "english"
        fields = PromptFields(question=sample.question, options=bench.shown_options(sample, 0),
                              hint=str(sample.metadata.get("hint", "")), language=language)
        assert PRESETS["paper"](fields).messages(sample.images) == bench.build_messages(sample)


def test_paper_preset_text() -> None:
    prompt = PRESETS["paper"](PromptFields("Which?", {"A": "x", "B": "y"}, "Look.", "english"))
    assert prompt.text.endswith("\nQuestion: Look.\nWhich?\nChoices: (A) x  (B) y\nAnswer: ")


@pytest.mark.parametrize(("name", "why"), [("vlmevalkit", "VLMEvalKit has no M3GIA dataset"),
                                           ("lmms-eval", "lmms-eval has no M3GIA task")])
def test_toolkits_without_m3gia_are_a_one_line_error(name: str, why: str) -> None:
    with pytest.raises(UserError) as caught:
        TABLE.resolve(name)
    message = str(caught.value)
    assert f"no '{name}' prompt for M3GIA: {why}" in message
    assert "choose paper, or a template file" in message and "\n" not in message


def test_only_the_paper_preset_is_listed() -> None:
    assert TABLE.names() == ["paper"]
    assert sorted(TABLE.unavailable) == ["lmms-eval", "vlmevalkit"]
