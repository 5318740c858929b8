"""MMStar's prompt presets. The default is VLMEvalKit's, since MMStar's published scores come from it.

VLMEvalKit, open-compass/VLMEvalKit@01424f9929593c12491c19b790ad1be017926552 vlmeval/dataset/image_mcq.py:
MMStar is an `ImageMCQDataset` and uses its `build_prompt` unchanged (no MMStar-specific override):

    Hint: <hint>\\n                     (only when the row has a hint pandas does not read as missing)
    Question: <question>\\n
    Options:\\nA. <text>\\n...          (the letters A..Z present, in letter order)
    Please select the correct answer from the options above. \\n     (trailing space and line break)

sent as one user message, the image first and then the text, with no system prompt.

lmms-eval, EvolvingLMMs-Lab/lmms-eval lmms_eval/tasks/mmstar/utils.py `mmstar_doc_to_text` with the
`default` kwargs of `_default_template_yaml` (@205d72d282862e28d71ddafe417f184373fa9f37): the Hugging Face
question (options inline) stripped, then "\\nAnswer with the option's letter from the given choices directly"
(no final full stop); the image first.
"""

from __future__ import annotations

import string
from typing import Final

from mmgauge.benchmarks.presets import (
    CHOICE_FIELDS,
    LMMS_EVAL,
    PAPER,
    VLMEVALKIT,
    Preset,
    PresetTable,
    Prompt,
    PromptFields,
    choice_values,
)

VLMEVALKIT_INSTRUCTION: Final = "Please select the correct answer from the options above. \n"
VLMEVALKIT_SOURCE: Final = (
    "VLMEvalKit vlmeval/dataset/image_mcq.py ImageMCQDataset.build_prompt, which MMStar uses unchanged "
    "(open-compass/VLMEvalKit@01424f99): image, then 'Question:/Options:' with 'A. text' lines and "
    "'Please select the correct answer from the options above.'; no system prompt"
)
LMMS_EVAL_POST_PROMPT: Final = "\nAnswer with the option's letter from the given choices directly"
LMMS_EVAL_SOURCE: Final = (
    "lmms-eval lmms_eval/tasks/mmstar/utils.py mmstar_doc_to_text + _default_template_yaml default "
    "post_prompt (EvolvingLMMs-Lab/lmms-eval@205d72d2): image, then the Hugging Face question with its "
    "inline 'Options: A: ..., B: ...' and \"Answer with the option's letter from the given choices directly\""
)
#: Why there is no `paper` preset (asking for it is a one-line error naming the choices).
NO_PAPER: Final = (
    "the MMStar paper and dataset card define no prompt wording of their own; its published scores come from "
    "VLMEvalKit, whose prompt is the default"
)


def vlmevalkit_prompt(fields: PromptFields) -> Prompt:
    text = f"Hint: {fields.hint}\n" if fields.hint else ""
    text += f"Question: {fields.question}\n"
    letters = [letter for letter in string.ascii_uppercase if letter in fields.options]
    if letters:
        text += "Options:\n" + "".join(f"{letter}. {fields.options[letter]}\n" for letter in letters)
        text += VLMEVALKIT_INSTRUCTION
    return Prompt(text=text)


def lmms_eval_prompt(fields: PromptFields) -> Prompt:
    """`fields.question` is the Hugging Face form, options inline (the benchmark passes it so)."""
    return Prompt(text=f"{fields.question.strip()}{LMMS_EVAL_POST_PROMPT}")


PRESETS: Final[dict[str, Preset]] = {
    VLMEVALKIT: Preset(VLMEVALKIT, VLMEVALKIT_SOURCE, "mmstar/vlmevalkit/01424f99", vlmevalkit_prompt),
    LMMS_EVAL: Preset(LMMS_EVAL, LMMS_EVAL_SOURCE, "mmstar/lmms-eval/205d72d2", lmms_eval_prompt),
}

TABLE: Final = PresetTable(benchmark="MMStar", presets=PRESETS, unavailable={PAPER: NO_PAPER},
                           template_fields=CHOICE_FIELDS, template_values=choice_values)


def resolve_prompt(value: str | None) -> Preset:
    """The preset asked for (a name or a template file); VLMEvalKit's when none is."""
    return TABLE.resolve(VLMEVALKIT if value is None else value)
