"""The MMBench prompt: one template per language, nothing model-specific.

Layout (English; the Chinese template has the same lines in Chinese):

    Hint: <hint>                 (only when the row has a hint)
    Question: <question>
    Options:
    A. <option A text>
    B. <option B text>
    ...
    Answer with the letter of the correct option only.

The wording is ours; the layout (hint, question, lettered options, an instruction to answer with the letter)
follows the MMBench paper, and the answer is read by the official matcher, which accepts a bare letter.

That prompt is the `paper` preset. `PRESETS` / `TABLE` add VLMEvalKit's and lmms-eval's exact wording (see the
comments above each, with the source file and commit); `preset_prompt` builds one question's prompt.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from mmgauge.benchmarks.presets import (
    CHOICE_FIELDS,
    LMMS_EVAL,
    PANDAS_DEFAULT_NA,
    PAPER,
    VLMEVALKIT,
    Preset,
    PresetTable,
    Prompt,
    PromptFields,
    choice_values,
)
from mmgauge.core.errors import UserError


@dataclass(frozen=True)
class Template:
    hint: str
    question: str
    options: str
    instruction: str


TEMPLATES: Final[dict[str, Template]] = {
    "en": Template(
        hint="Hint: {}",
        question="Question: {}",
        options="Options:",
        instruction="Answer with the letter of the correct option only.",
    ),
    "cn": Template(
        hint="提示：{}",
        question="问题：{}",
        options="选项：",
        instruction="请只回答正确选项的字母。",
    ),
}
_ALIASES: Final = {"en": "en", "english": "en", "cn": "cn", "zh": "cn", "chinese": "cn"}
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")


def language(name: str) -> str:
    key = _ALIASES.get(name.strip().lower())
    if key is None:
        raise UserError(f"unknown prompt language '{name}'; known: en, cn", field="prompt_language")
    return key


def detect_language(questions: Iterable[str]) -> str:
    """"cn" when most questions contain Chinese characters (MMBench-CN, CCBench), else "en"."""
    texts = list(questions)
    han = sum(1 for text in texts if _HAN.search(text))
    return "cn" if texts and 2 * han > len(texts) else "en"


def build_prompt(question: str, options: Mapping[str, str], hint: str = "", lang: str = "en") -> str:
    template = TEMPLATES[language(lang)]
    lines = [template.hint.format(hint.strip())] if hint.strip() else []
    lines.append(template.question.format(question.strip()))
    lines.append(template.options)
    lines.extend(f"{letter}. {text}" for letter, text in options.items())
    lines.append(template.instruction)
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------------------
# Presets: the paper's prompt above, and the exact wording of VLMEvalKit and lmms-eval (their text is data).
# One table serves MMBench (EN, CN, v1.1) and CCBench, which are the same benchmark on other files.

# VLMEvalKit, open-compass/VLMEvalKit@9ede1af0143acf7d4c2e41858ffe1624c5f42bf8 vlmeval/dataset/image_mcq.py
# ImageMCQDataset.build_prompt (the same text at @01424f9929593c12491c19b790ad1be017926552), used unchanged
# for MMBench_DEV/TEST_EN/CN(_V11) and CCBench: English wording for every language.
#     Hint: <hint>\n                     (only when the hint cell is not missing to pandas)
#     Question: <question>\n
#     Options:\nA. <text>\n...           (letters A..Z that are present, in letter order)
#     Please select the correct answer from the options above. \n     (trailing space and line break)
# Message: [image, text]; the generic OpenAI-compatible wrapper (vlmeval/api/gpt.py OpenAIWrapper,
# @00006c5b9371be33d81e8685d3ed4e1a88e9e9dd) keeps that order and sends no system prompt by default.
VLMEVALKIT_HINT: Final = "Hint: {}\n"
VLMEVALKIT_QUESTION: Final = "Question: {}\n"
VLMEVALKIT_OPTIONS: Final = "Options:\n"
VLMEVALKIT_INSTRUCTION: Final = "Please select the correct answer from the options above. \n"
VLMEVALKIT_SOURCE: Final = (
    "VLMEvalKit vlmeval/dataset/image_mcq.py ImageMCQDataset.build_prompt (open-compass/VLMEvalKit@9ede1af0):"
    " image, then 'Hint:/Question:/Options:' and 'Please select the correct answer from the options above.'"
    " in English for every MMBench file and CCBench; no system prompt"
)

# lmms-eval, EvolvingLMMs-Lab/lmms-eval@161c7a170643a0d71c24312251d35f7b490d2925: lmms_eval/tasks/mmbench/
# en_utils.py and cn_utils.py mmbench_doc_to_text, cc_utils.py mmbench_cn_cc_doc_to_text, mmbench_evals.py
# MMBench_Evaluator.create_options_prompt. All three utils read their options header (`sys_prompt`) from
# mmbench.yaml: "There are several options:", for MMBench-CN and CCBench too (older lmms-eval read
# mmbench_cn.yaml, "有如下几个选项：", e.g. @3a34c0c6bd5590622dc575f157e6ded0d6885e51).
#   options = sys_prompt + "\n" + "A. <text>\n"... for the letters A-E present, sorted, non-empty and not
#             "nan", with the final line breaks stripped
#   query   = f"{hint} {question} {options}" when there is a hint, else f"{question} {options}"; EN counts
#             the hint "nan" as none, CN does not; CCBench (cc_utils) never uses the hint (it has none)
#   text    = f"{query}\n{post_prompt}", with the `default` post_prompt (an openai_compatible model's):
#             _default_template_mmbench_en_yaml (@03b2f7cbd0e4d810fb75c8340c21213b60be9295):
#                 "\nAnswer with the option's letter from the given choices directly."
#             _default_template_mmbench_cn_yaml (@2bb5e9852537729b4fb25fcaa2dce11eb1b2971d) and
#             mmbench_cc.yaml (@161c7a17): "\n请直接使用所提供的选项字母作为答案回答。"
#   so a blank line separates the options from the instruction. Message (chat model, lmms_eval/api/task.py
#   auto_doc_to_messages @00dfe290ab8d113d5c171a41433ca16b3f9fe171): [image, text]. lmms-eval has no MMBench
#   v1.1 task; this wording applied to v1.1 files is what its EN/CN task code would send.
LMMS_EVAL_OPTIONS_HEADER: Final = "There are several options:"
LMMS_EVAL_LETTERS: Final = "ABCDE"
LMMS_EVAL_POST_PROMPT: Final[dict[str, str]] = {
    "en": "\nAnswer with the option's letter from the given choices directly.",
    "cn": "\n请直接使用所提供的选项字母作为答案回答。",
}
LMMS_EVAL_SOURCE: Final = (
    "lmms-eval lmms_eval/tasks/mmbench/{en,cn,cc}_utils.py doc_to_text + mmbench_evals.py "
    "create_options_prompt + default post_prompt (EvolvingLMMs-Lab/lmms-eval@161c7a17): image, then "
    "'<hint> <question> There are several options:\\nA. ...' and the EN or CN post_prompt"
)


def vlmevalkit_prompt(fields: PromptFields) -> Prompt:
    letters = [letter for letter in string.ascii_uppercase if letter in fields.options]
    options = [(letter, fields.options[letter]) for letter in letters]
    text = VLMEVALKIT_HINT.format(fields.hint) if fields.hint not in PANDAS_DEFAULT_NA else ""
    text += VLMEVALKIT_QUESTION.format(fields.question)
    if options:
        text += VLMEVALKIT_OPTIONS + "".join(f"{letter}. {option}\n" for letter, option in options)
        text += VLMEVALKIT_INSTRUCTION
    return Prompt(text=text)


def lmms_eval_prompt(fields: PromptFields) -> Prompt:
    lang = language(fields.language)
    shown = sorted(letter for letter in fields.options if letter in LMMS_EVAL_LETTERS)
    lines = "".join(f"{letter}. {fields.options[letter]}\n" for letter in shown
                    if fields.options[letter] and fields.options[letter] != "nan")
    options = f"{LMMS_EVAL_OPTIONS_HEADER}\n{lines}".rstrip("\n")
    hint = fields.hint
    has_hint = hint != "" and (lang == "cn" or hint != "nan")
    query = f"{hint} {fields.question} {options}" if has_hint else f"{fields.question} {options}"
    return Prompt(text=f"{query}\n{LMMS_EVAL_POST_PROMPT[lang]}")


def paper_prompt(fields: PromptFields) -> Prompt:
    return Prompt(text=build_prompt(fields.question, fields.options, fields.hint, fields.language or "en"))


PRESETS: Final[dict[str, Preset]] = {
    PAPER: Preset(PAPER, "mmgauge's wording of the MMBench paper's layout (hint, question, lettered options, "
                         "answer-with-the-letter instruction; English or Chinese), image first",
                  "mmbench/paper/1", paper_prompt),
    VLMEVALKIT: Preset(VLMEVALKIT, VLMEVALKIT_SOURCE, "mmbench/vlmevalkit/9ede1af0", vlmevalkit_prompt),
    LMMS_EVAL: Preset(LMMS_EVAL, LMMS_EVAL_SOURCE, "mmbench/lmms-eval/161c7a17", lmms_eval_prompt),
}

TABLE: Final = PresetTable(benchmark="MMBench", presets=PRESETS, unavailable={},
                           template_fields=CHOICE_FIELDS, template_values=choice_values)


def preset_prompt(preset: str | Preset, question: str, options: Mapping[str, str], hint: str = "",
                  lang: str = "en") -> Prompt:
    """The prompt of one MMBench question under a preset (given by name or as a `Preset`)."""
    chosen = TABLE.get(preset) if isinstance(preset, str) else preset
    return chosen(PromptFields(question=question, options=dict(options), hint=hint, language=lang))
