"""MMBench prompt presets, asserted string for string against the text in each toolkit's source.

VLMEvalKit: open-compass/VLMEvalKit@9ede1af0143acf7d4c2e41858ffe1624c5f42bf8, vlmeval/dataset/image_mcq.py,
ImageMCQDataset.build_prompt (identical at @01424f9929593c12491c19b790ad1be017926552); message order from
vlmeval/dataset/image_base.py and vlmeval/api/gpt.py OpenAIWrapper.prepare_itlist (@00006c5b).

lmms-eval: EvolvingLMMs-Lab/lmms-eval@161c7a170643a0d71c24312251d35f7b490d2925,
lmms_eval/tasks/mmbench/en_utils.py, cn_utils.py, cc_utils.py (doc_to_text), mmbench_evals.py
(create_options_prompt), mmbench.yaml (sys_prompt "There are several options:"); post_prompts from
_default_template_mmbench_en_yaml (@03b2f7cbd0e4d810fb75c8340c21213b60be9295) and
_default_template_mmbench_cn_yaml (@2bb5e9852537729b4fb25fcaa2dce11eb1b2971d) / mmbench_cc.yaml (@161c7a17).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
from mmgauge.benchmarks.mmbench.prompts import PRESETS, TABLE, build_prompt, preset_prompt
from mmgauge.benchmarks.presets import PromptFields
from mmgauge.core.errors import UserError
from mmgauge.core.types import ImagePart, TextPart

FOUR = {"A": "3", "B": "5", "C": "7", "D": "9"}
SELECT = "Please select the correct answer from the options above. \n"
LETTER_EN = "Answer with the option's letter from the given choices directly."
THREE_CN = {"A": "一只", "B": "两只", "C": "三只"}
TWO_CC = {"A": "齐白石", "B": "徐悲鸿"}


def text(preset: str, question: str, options: dict[str, str], hint: str = "", lang: str = "en") -> str:
    return preset_prompt(preset, question, options, hint, lang).text


# --- VLMEvalKit ------------------------------------------------------------------------------------------

def test_vlmevalkit_english_with_hint_and_four_options() -> None:
    assert text("vlmevalkit", "How many apples are listed?", FOUR, "The table lists fruit.") == (
        "Hint: The table lists fruit.\n"
        "Question: How many apples are listed?\n"
        "Options:\nA. 3\nB. 5\nC. 7\nD. 9\n"
        "Please select the correct answer from the options above. \n"
    )


def test_vlmevalkit_without_hint_and_two_or_three_options() -> None:
    assert text("vlmevalkit", "Is it hot?", {"A": "yes", "B": "no"}) == (
        "Question: Is it hot?\nOptions:\nA. yes\nB. no\n"
        "Please select the correct answer from the options above. \n"
    )
    assert text("vlmevalkit", "Which?", {"A": "x", "B": "y", "C": "z"}) == (
        "Question: Which?\nOptions:\nA. x\nB. y\nC. z\n" + SELECT
    )


def test_vlmevalkit_uses_the_english_wording_for_mmbench_cn_and_ccbench() -> None:
    assert text("vlmevalkit", "图中有几只猫？", THREE_CN, "图中有两只猫。", lang="cn") == (
        "Hint: 图中有两只猫。\nQuestion: 图中有几只猫？\nOptions:\nA. 一只\nB. 两只\nC. 三只\n"
        "Please select the correct answer from the options above. \n"
    )
    assert text("vlmevalkit", "这幅画的作者是谁？", TWO_CC, lang="cn") == (
        "Question: 这幅画的作者是谁？\nOptions:\nA. 齐白石\nB. 徐悲鸿\n"
        "Please select the correct answer from the options above. \n"
    )


@pytest.mark.parametrize("missing", ["", "nan", "NaN", "None", "NA", "N/A", "null", "<NA>"])
def test_vlmevalkit_drops_a_hint_pandas_reads_as_missing(missing: str) -> None:
    assert text("vlmevalkit", "Q?", {"A": "x", "B": "y"}, missing).startswith("Question: Q?\n")


def test_vlmevalkit_keeps_a_hint_pandas_keeps_and_writes_options_in_letter_order() -> None:
    got = text("vlmevalkit", "Q?", {"B": "y", "A": "x"}, " ")
    assert got == "Hint:  \nQuestion: Q?\nOptions:\nA. x\nB. y\n" + SELECT


# --- lmms-eval -------------------------------------------------------------------------------------------

def test_lmms_eval_english_with_hint_and_four_options() -> None:
    assert text("lmms-eval", "How many apples are listed?", FOUR, "The table lists fruit.") == (
        "The table lists fruit. How many apples are listed? There are several options:\n"
        "A. 3\nB. 5\nC. 7\nD. 9\n"
        "\nAnswer with the option's letter from the given choices directly."
    )


def test_lmms_eval_english_without_hint_two_and_three_options() -> None:
    assert text("lmms-eval", "Is it hot?", {"A": "yes", "B": "no"}) == (
        "Is it hot? There are several options:\nA. yes\nB. no\n\n"
        "Answer with the option's letter from the given choices directly."
    )
    assert text("lmms-eval", "Which?", {"A": "x", "B": "y", "C": "z"}) == (
        "Which? There are several options:\nA. x\nB. y\nC. z\n\n"
        "Answer with the option's letter from the given choices directly."
    )


def test_lmms_eval_english_treats_the_hint_nan_as_no_hint() -> None:
    assert text("lmms-eval", "Q?", {"A": "x", "B": "y"}, "nan").startswith("Q? There are several options:")


def test_lmms_eval_chinese_keeps_the_english_header_and_uses_the_chinese_post_prompt() -> None:
    assert text("lmms-eval", "图中有几只猫？", THREE_CN, "图中有两只猫。", lang="cn") == (
        "图中有两只猫。 图中有几只猫？ There are several options:\nA. 一只\nB. 两只\nC. 三只\n"
        "\n请直接使用所提供的选项字母作为答案回答。"
    )


def test_lmms_eval_chinese_shows_a_nan_hint_as_cn_utils_does() -> None:
    # cn_utils checks only pd.notna(hint), not hint != "nan" as en_utils does.
    assert text("lmms-eval", "问题？", {"A": "x", "B": "y"}, "nan", lang="cn").startswith("nan 问题？ There")


def test_lmms_eval_ccbench_has_no_hint() -> None:
    assert text("lmms-eval", "这幅画的作者是谁？", TWO_CC, lang="cn") == (
        "这幅画的作者是谁？ There are several options:\nA. 齐白石\nB. 徐悲鸿\n"
        "\n请直接使用所提供的选项字母作为答案回答。"
    )


def test_lmms_eval_sorts_letters_and_drops_empty_nan_and_non_a_to_e_options() -> None:
    options = {"B": "y", "A": "x", "C": "", "D": "nan", "F": "z"}
    assert text("lmms-eval", "Q?", options) == (
        "Q? There are several options:\nA. x\nB. y\n\n" + LETTER_EN
    )


def test_lmms_eval_rejects_an_unknown_language() -> None:
    with pytest.raises(UserError, match="unknown prompt language 'fr'"):
        text("lmms-eval", "Q?", {"A": "x", "B": "y"}, lang="fr")


# --- paper and wiring ------------------------------------------------------------------------------------

def test_paper_preset_is_todays_prompt_byte_for_byte() -> None:
    assert text("paper", "Q?", {"A": "x", "B": "y"}, "look") == (
        "Hint: look\nQuestion: Q?\nOptions:\nA. x\nB. y\nAnswer with the letter of the correct option only."
    )
    assert text("paper", "问题?", {"A": "x", "B": "y"}, lang="cn") == build_prompt(
        "问题?", {"A": "x", "B": "y"}, lang="cn")


def test_paper_preset_messages_equal_the_benchmarks_messages(tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    dataset = bench.load(bench.sample_data(tmp_path))
    for sample in dataset.samples[:12]:
        fields = PromptFields(question=sample.question, options=sample.options,
                              hint=str(sample.metadata["hint"]), language=str(sample.metadata["language"]))
        assert PRESETS["paper"](fields).messages(sample.images) == bench.build_messages(sample)


@pytest.mark.parametrize("name", ["paper", "vlmevalkit", "lmms-eval"])
def test_every_preset_puts_the_one_image_before_the_text_and_sends_no_system_prompt(
        name: str, tmp_path: Path) -> None:
    bench = MMBenchBenchmark()
    sample = bench.load(bench.sample_data(tmp_path)).samples[0]
    prompt = TABLE.get(name)(PromptFields(sample.question, sample.options, "", "en"))
    (message,) = prompt.messages(sample.images)
    assert [type(part) for part in message.content] == [ImagePart, TextPart]
    assert prompt.system is None and message.role == "user"


def test_presets_name_their_source_file_and_commit() -> None:
    assert TABLE.names() == ["paper", "vlmevalkit", "lmms-eval"]
    assert "image_mcq.py" in PRESETS["vlmevalkit"].source and "9ede1af0" in PRESETS["vlmevalkit"].source
    assert "en,cn,cc}_utils.py" in PRESETS["lmms-eval"].source and "161c7a17" in PRESETS["lmms-eval"].source
    assert len({preset.key for preset in PRESETS.values()}) == 3
