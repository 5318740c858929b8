"""MME prompt presets: the paper's (the question as the release writes it), VLMEvalKit's and lmms-eval's.

Every MME question in the release (and in VLMEvalKit's MME.tsv and the lmms-lab/MME parquet) already ends
with " Please answer yes or no."; what each toolkit does with that suffix is the whole difference:

- paper: sends the question as is, image first (MME's protocol adds nothing).
- vlmevalkit: sends the question as is, image first; identical text to the paper's.
- lmms-eval: strips the question, removes " Please answer yes or no." and appends
  "\\nAnswer the question using a single word or phrase." (its default post_prompt), image first.
"""

from __future__ import annotations

from typing import Final

from mmgauge.benchmarks.presets import (
    LMMS_EVAL,
    PAPER,
    VLMEVALKIT,
    Preset,
    PresetTable,
    Prompt,
    PromptFields,
    TemplateStyle,
)

YES_NO_SUFFIX: Final = "Please answer yes or no."

# VLMEvalKit, open-compass/VLMEvalKit@145bdaf15ea0e0f2e19adbf5879b15f9c8f9be85
# vlmeval/dataset/image_yorn.py: ImageYORNDataset.build_prompt adds text only for AMBER; MME falls through to
# vlmeval/dataset/image_base.py (@050726559997d4642f3ae483391be97d49868f8c) ImageBaseDataset.build_prompt:
# [image, text=line['question']]. The generic OpenAI-compatible wrapper (vlmeval/api/gpt.py OpenAIWrapper,
# @00006c5b9371be33d81e8685d3ed4e1a88e9e9dd) keeps that order and sends no system prompt by default.
VLMEVALKIT_SOURCE: Final = (
    "VLMEvalKit vlmeval/dataset/image_yorn.py + image_base.py build_prompt "
    "(open-compass/VLMEvalKit@145bdaf1 / @05072655): image, then the question unchanged; no system prompt"
)

# lmms-eval, EvolvingLMMs-Lab/lmms-eval lmms_eval/tasks/mme/utils.py mme_doc_to_text
# (@306a8b487ad79bcd7084dc020e0ca4710b21bb86): question.strip(); with a non-empty post_prompt it removes
# replace_prompt = " Please answer yes or no." and appends the post_prompt. lmms_eval/tasks/mme/mme.yaml
# (@e294fc6df61cb21219ce9516f239672e55c3dba6) `default` post_prompt, the one an `openai_compatible` model
# gets (no model-specific entry): "\nAnswer the question using a single word or phrase." The chat model
# (lmms_eval/api/task.py auto_doc_to_messages, @00dfe290ab8d113d5c171a41433ca16b3f9fe171) puts the image
# before the text.
LMMS_EVAL_REMOVED: Final = " Please answer yes or no."
LMMS_EVAL_POST_PROMPT: Final = "\nAnswer the question using a single word or phrase."
LMMS_EVAL_SOURCE: Final = (
    "lmms-eval lmms_eval/tasks/mme/utils.py mme_doc_to_text + mme.yaml default post_prompt "
    "(EvolvingLMMs-Lab/lmms-eval@306a8b48 / @e294fc6d): image, then the question without "
    "' Please answer yes or no.' plus '\\nAnswer the question using a single word or phrase.'"
)


def paper(fields: PromptFields) -> Prompt:
    return Prompt(text=fields.question)


def vlmevalkit(fields: PromptFields) -> Prompt:
    return Prompt(text=fields.question)


def lmms_eval(fields: PromptFields) -> Prompt:
    question = fields.question.strip().replace(LMMS_EVAL_REMOVED, "")
    return Prompt(text=question + LMMS_EVAL_POST_PROMPT)


def question_stem(question: str) -> str:
    """The question without its final "Please answer yes or no." (and the space before it)."""
    text = question.strip()
    return text.removesuffix(YES_NO_SUFFIX).rstrip() if text.endswith(YES_NO_SUFFIX) else text


def template_values(fields: PromptFields, style: TemplateStyle) -> dict[str, str]:
    return {"question": fields.question, "question_stem": question_stem(fields.question)}


PRESETS: Final[dict[str, Preset]] = {
    PAPER: Preset(PAPER, "MME release: the question as written (it ends with 'Please answer yes or no.'), "
                         "image first", "mme/paper/1", paper),
    VLMEVALKIT: Preset(VLMEVALKIT, VLMEVALKIT_SOURCE, "mme/vlmevalkit/145bdaf1", vlmevalkit),
    LMMS_EVAL: Preset(LMMS_EVAL, LMMS_EVAL_SOURCE, "mme/lmms-eval/306a8b48", lmms_eval),
}

TABLE: Final = PresetTable(
    benchmark="MME",
    presets=PRESETS,
    unavailable={},
    template_fields={
        "question": "the question as the data writes it (ending with 'Please answer yes or no.')",
        "question_stem": "the question without its final 'Please answer yes or no.'",
    },
    template_values=template_values,
)


def build_prompt(preset: str | Preset, question: str) -> Prompt:
    """The prompt of one MME question under a preset (given by name or as a `Preset`)."""
    chosen = TABLE.get(preset) if isinstance(preset, str) else preset
    return chosen(PromptFields(question=question))
