"""MME prompt presets and what each toolkit does with the questions' own "Please answer yes or no.".

VLMEvalKit: open-compass/VLMEvalKit@145bdaf15ea0e0f2e19adbf5879b15f9c8f9be85 vlmeval/dataset/image_yorn.py
(ImageYORNDataset.build_prompt adds text only for AMBER) and @050726559997d4642f3ae483391be97d49868f8c
vlmeval/dataset/image_base.py (ImageBaseDataset.build_prompt: [image, question]).

lmms-eval: EvolvingLMMs-Lab/lmms-eval@306a8b487ad79bcd7084dc020e0ca4710b21bb86 lmms_eval/tasks/mme/utils.py
(mme_doc_to_text: strip, remove " Please answer yes or no.", append the post_prompt) and
@e294fc6df61cb21219ce9516f239672e55c3dba6 lmms_eval/tasks/mme/mme.yaml (default post_prompt
"\\nAnswer the question using a single word or phrase.").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.mme.bench import MMEBenchmark
from mmgauge.benchmarks.mme.prompts import PRESETS, TABLE, build_prompt, question_stem
from mmgauge.benchmarks.presets import PromptFields
from mmgauge.core.types import ImagePart, TextPart

ASKED = "Is there a red ball in the image? Please answer yes or no."


def test_paper_and_vlmevalkit_send_the_question_with_its_suffix_unchanged() -> None:
    assert build_prompt("paper", ASKED).text == ASKED
    assert build_prompt("vlmevalkit", ASKED).text == ASKED
    assert build_prompt("vlmevalkit", "  Odd spacing? Please answer yes or no.\n").text == (
        "  Odd spacing? Please answer yes or no.\n")


def test_lmms_eval_replaces_the_suffix_with_its_post_prompt() -> None:
    assert build_prompt("lmms-eval", ASKED).text == (
        "Is there a red ball in the image?\nAnswer the question using a single word or phrase.")


def test_lmms_eval_strips_first_and_appends_even_without_the_suffix() -> None:
    assert build_prompt("lmms-eval", "  Is it red? Please answer yes or no.\n").text == (
        "Is it red?\nAnswer the question using a single word or phrase.")
    assert build_prompt("lmms-eval", "Is this a cat?").text == (
        "Is this a cat?\nAnswer the question using a single word or phrase.")


def test_lmms_eval_removes_only_the_suffix_with_its_leading_space() -> None:
    assert build_prompt("lmms-eval", "Is it red?Please answer yes or no.").text == (
        "Is it red?Please answer yes or no.\nAnswer the question using a single word or phrase.")


def test_question_stem_drops_only_a_final_suffix() -> None:
    assert question_stem(ASKED) == "Is there a red ball in the image?"
    assert question_stem("Is this a cat?") == "Is this a cat?"


def test_paper_preset_messages_equal_the_benchmarks_messages(tmp_path: Path) -> None:
    bench = MMEBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    assert dataset.samples
    for sample in dataset.samples:
        assert sample.question.endswith(" Please answer yes or no.")
        prompt = PRESETS["paper"](PromptFields(question=sample.question))
        assert prompt.messages(sample.images) == bench.build_messages(sample)


@pytest.mark.parametrize("name", ["paper", "vlmevalkit", "lmms-eval"])
def test_every_preset_puts_the_image_first_without_a_system_prompt(name: str, tmp_path: Path) -> None:
    bench = MMEBenchmark()
    sample = bench.load(bench.sample_data(tmp_path)).samples[0]
    prompt = TABLE.get(name)(PromptFields(question=sample.question))
    (message,) = prompt.messages(sample.images)
    assert [type(part) for part in message.content] == [ImagePart, TextPart]
    assert prompt.system is None


def test_presets_name_their_source_file_and_commit() -> None:
    assert TABLE.names() == ["paper", "vlmevalkit", "lmms-eval"]
    assert "image_yorn.py" in PRESETS["vlmevalkit"].source and "145bdaf1" in PRESETS["vlmevalkit"].source
    assert "tasks/mme/utils.py" in PRESETS["lmms-eval"].source and "306a8b48" in PRESETS["lmms-eval"].source
