"""M3GIA prompts: the official layout, with its instruction (and labels) in each of the six languages.

The official evaluation puts the instruction first ("prefix", its default), then `Question:
<hint>\\n<question>`, `Choices: (A) ...  (B) ...` on one line (two spaces between options) and `Answer: `. It
uses the English instruction for every language; that stays the default here. The English set is the release's
wording; the other five are our translations of it.

That prompt is the `paper` preset (`PRESETS` / `TABLE`); VLMEvalKit and lmms-eval have no M3GIA, so their
presets are unavailable and asking for them is a one-line error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from mmgauge.benchmarks.m3gia.languages import language_name
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
from mmgauge.core.errors import UserError

#: `--prompt-language native` asks each question with the instruction of its own language.
NATIVE: Final = "native"
DEFAULT_PROMPT_LANGUAGE: Final = "english"


@dataclass(frozen=True)
class PromptSet:
    instruction: str
    question: str
    choices: str
    answer: str


PROMPTS: Final[dict[str, PromptSet]] = {
    "english": PromptSet(
        "Assuming you are an expert in multimodality. The following are multiple-choice questions "
        "(with answers) about causal commonsense reasoning. That may include picture information. "
        "Please only output options such as A, B, C, D, E, etc. without any explanation.",
        "Question: ", "Choices: ", "Answer: "),
    "chinese": PromptSet(
        "假设你是一位多模态领域的专家。以下是关于因果常识推理的选择题（附答案），其中可能包含图片信息。"
        "请只输出选项，例如 A、B、C、D、E 等，不要作任何解释。",
        "问题：", "选项：", "答案："),
    "french": PromptSet(
        "Supposez que vous êtes un expert en multimodalité. Voici des questions à choix multiples "
        "(avec réponses) sur le raisonnement causal de bon sens, qui peuvent comporter des informations "
        "en image. Donnez seulement l'option, par exemple A, B, C, D, E, etc., sans aucune explication.",
        "Question : ", "Choix : ", "Réponse : "),
    "spanish": PromptSet(
        "Supón que eres un experto en multimodalidad. Las siguientes son preguntas de opción múltiple (con "
        "respuestas) sobre razonamiento causal de sentido común, que pueden incluir información de imágenes. "
        "Responde solo con la opción, por ejemplo A, B, C, D, E, etc., sin ninguna explicación.",
        "Pregunta: ", "Opciones: ", "Respuesta: "),
    "portuguese": PromptSet(
        "Suponha que você é um especialista em multimodalidade. A seguir estão questões de múltipla "
        "escolha (com respostas) sobre raciocínio causal de senso comum, que podem incluir informações "
        "de imagem. Responda apenas com a opção, por exemplo A, B, C, D, E etc., sem nenhuma explicação.",
        "Pergunta: ", "Opções: ", "Resposta: "),
    "korean": PromptSet(
        "당신이 멀티모달 분야의 전문가라고 가정하세요. "
        "다음은 인과적 상식 추론에 관한 객관식 문제(정답 포함)이며, "
        "그림 정보가 포함될 수 있습니다. 설명 없이 A, B, C, D, E 등 선택지만 출력하세요.",
        "질문: ", "선택지: ", "답: "),
}

def prompt_language(value: str | None) -> str:
    """The prompt language setting: a language name or code, `native`, or None for English."""
    if value is None:
        return DEFAULT_PROMPT_LANGUAGE
    if value.strip().lower() == NATIVE:
        return NATIVE
    try:
        return language_name(value, field="--prompt-language")
    except UserError as error:
        raise UserError(f"{error.message}, or '{NATIVE}' (each question's own language)",
                        field="--prompt-language") from error


def options_line(options: Mapping[str, str]) -> str:
    return "  ".join(f"({letter}) {text}" for letter, text in options.items())


def question_text(question: str, hint: str) -> str:
    """The hint before the question, on its own line, when there is one."""
    return "\n".join(part for part in (hint, question) if part)


def build_prompt(question: str, hint: str, options: Mapping[str, str], language: str) -> str:
    words = PROMPTS[language]
    return (
        f"{words.instruction}\n{words.question}{question_text(question, hint)}\n"
        f"{words.choices}{options_line(options)}\n{words.answer}"
    )


# Presets. Only the paper's wording exists: neither toolkit has the benchmark (checked: no M3GIA dataset in
# open-compass/VLMEvalKit vlmeval/dataset @9ede1af0143acf7d4c2e41858ffe1624c5f42bf8, no lmms_eval/tasks/m3gia
# in EvolvingLMMs-Lab/lmms-eval @161c7a170643a0d71c24312251d35f7b490d2925), so asking for theirs is an error.
def paper_prompt(fields: PromptFields) -> Prompt:
    return Prompt(text=build_prompt(fields.question, fields.hint, fields.options,
                                    fields.language or DEFAULT_PROMPT_LANGUAGE))


PRESETS: Final[dict[str, Preset]] = {
    PAPER: Preset(PAPER, "M3GIA release evaluation prompt (instruction first, 'Question:', "
                         "'Choices: (A) ...', 'Answer: '), image first", "m3gia/paper/1", paper_prompt),
}

TABLE: Final = PresetTable(
    benchmark="M3GIA",
    presets=PRESETS,
    unavailable={
        VLMEVALKIT: "VLMEvalKit has no M3GIA dataset",
        LMMS_EVAL: "lmms-eval has no M3GIA task",
    },
    template_fields=CHOICE_FIELDS,
    template_values=choice_values,
)
