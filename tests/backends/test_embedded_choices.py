"""The embedded model answers a question that lists its allowed answers by choosing one by calibrated
likelihood, never by generating; with a stand-in tokenizer and likelihoods, so no model is loaded."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from mmgauge.backends import _embedded_engine as engine_module
from mmgauge.backends._embedded_choice import Candidate, Scored, best, continuations, scored_by
from mmgauge.backends._embedded_engine import EmbeddedEngine, EngineInput
from mmgauge.backends._embedded_prompt import CONTENT_FREE
from mmgauge.backends.base import Request
from mmgauge.backends.embedded import EmbeddedBackend
from mmgauge.core.types import AnswerChoice, GenerationConfig, Message

YES_NO = (Candidate("Yes", affirms=True), Candidate("No"))


def test_the_highest_calibrated_score_wins_not_the_highest_likelihood() -> None:
    # "No" is likelier with the OCR text (-0.5 > -1.0), but the text made "Yes" far likelier than without it.
    scores = [Scored("Yes", "Yes", conditional=-1.0, neutral=-3.0), Scored("No", "No", -0.5, -0.2)]
    assert best(scores).answer == "Yes"
    assert [round(score.calibrated, 3) for score in scores] == [2.0, -0.3]


def test_an_affirming_answer_adds_the_questions_support() -> None:
    # The OCR text made the question's words likelier (support 0.5 per token): enough to tip "Yes" over "No".
    scores = [Scored("Yes", "Yes", -2.0, -2.1, support=0.5), Scored("No", "No", -1.0, -1.3)]
    assert best(scores).answer == "Yes" and round(scores[0].calibrated, 3) == 0.6


def test_with_nothing_read_the_models_own_preference_decides_then_the_first_offered() -> None:
    assert best([Scored("Yes", "Yes", -2.0, -2.0), Scored("No", "No", -1.0, -1.0)]).answer == "No"
    assert best([Scored("A", "A", -1.0, -1.0), Scored("B", "B", -1.0, -1.0)]).answer == "A"


def test_options_are_scored_by_their_texts_when_every_one_has_a_distinct_text() -> None:
    options = (Candidate("A", "a red ball"), Candidate("B", " a blue box "))
    assert scored_by(options) == "text" and continuations(options) == ["a red ball", "a blue box"]
    assert scored_by(YES_NO) == "answer" and continuations(YES_NO) == ["Yes", "No"]
    same = (Candidate("A", "yes"), Candidate("B", "yes"))
    assert continuations(same) == ["A", "B"]  # texts that cannot tell the options apart: the letters


class StandInTokenizer:
    """Chat template: the user text after a marker; token ids: one per character (only counts matter)."""

    def apply_chat_template(self, messages: list[dict[str, str]], **_: Any) -> str:
        return f"<prompt>{messages[-1]['content']}<reply>"

    def __call__(self, text: str, **_: Any) -> dict[str, list[int]]:
        return {"input_ids": [ord(char) for char in text]}


#: Log-likelihood per token of a reply given the OCR text ('HELLO' read) and given no text found.
LIKELIHOOD = {("HELLO", "Yes"): -1.0, ("HELLO", "No"): -0.6, ("none", "Yes"): -3.0, ("none", "No"): -0.4}


def stand_in_likelihoods(
    model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]]
) -> list[tuple[float, int]]:
    """Per token as in LIKELIHOOD; the question's own words are equally likely with the text and without."""
    out = []
    for prompt, reply in pairs:
        context = "HELLO" if "image: HELLO" in prompt else "none"
        tokens = len(tokenizer(reply)["input_ids"])
        out.append((LIKELIHOOD.get((context, reply), -2.0) * tokens, tokens))
    return out


@pytest.fixture()
def engine(monkeypatch: pytest.MonkeyPatch) -> EmbeddedEngine:
    """An engine that is 'loaded' with stand-ins; generating free text fails the test."""
    loaded = EmbeddedEngine()
    loaded._tokenizer, loaded._model = StandInTokenizer(), object()
    monkeypatch.setattr(engine_module, "reply_loglikelihoods", stand_in_likelihoods)

    def no_generation(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("generated free text although the request lists its answers")

    monkeypatch.setattr(loaded, "_generate", no_generation)
    monkeypatch.setattr(loaded, "_ocr_text", lambda item: "HELLO" if item.images else "")
    return loaded


def test_the_engine_chooses_by_calibrated_likelihood_and_never_generates(engine: EmbeddedEngine) -> None:
    item = EngineInput(system=None, text="Is HELLO written?", images=[b"png"], choices=YES_NO)
    (answer,) = engine.answer_batch([item], max_new_tokens=8, temperature=0.0, seed=None)
    assert answer.text == "Yes" and answer.completion_tokens == 0 and answer.ocr_text == "HELLO"
    assert [(s.answer, s.conditional, s.neutral) for s in answer.scores] == [("Yes", -1.0, -3.0),
                                                                             ("No", -0.6, -0.4)]


def test_sampling_settings_do_not_turn_a_choice_into_generation(engine: EmbeddedEngine) -> None:
    item = EngineInput(system=None, text="Is HELLO written?", images=[b"png"], choices=YES_NO)
    (answer,) = engine.answer_batch([item], max_new_tokens=8, temperature=0.9, seed=3)
    assert answer.text == "Yes"


def test_the_backend_answers_with_the_choice_and_records_every_score(engine: EmbeddedEngine) -> None:
    backend = EmbeddedBackend()
    backend.engine = engine
    backend._answered = True  # the stand-in is loaded already
    choices = [AnswerChoice(answer="Yes", affirms=True), AnswerChoice(answer="No")]
    asked = [Message.user("Is HELLO written?")]
    request = Request(messages=asked, config=GenerationConfig(), choices=choices)
    # No image: no text read, so both sides are equal and the model's own preference ("No") decides.
    (response,) = asyncio.run(backend.generate([request]))
    assert response.ok and response.text == "No" and response.context == ""
    assert response.choice_scores is not None
    scores = [(s.answer, s.score, s.scored_as) for s in response.choice_scores]
    assert scores == [("Yes", 0.0, "Yes"), ("No", 0.0, "No")]
    terms = {"with_ocr_text": -0.4, "without": -0.4, "question_support": 0.0}
    assert response.choice_scores[1].terms == terms
    assert backend.answers_from_choices and "choices" in backend.describe()


def test_the_questions_support_is_how_much_likelier_the_ocr_text_makes_its_words(
    engine: EmbeddedEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def likelier_question(
        model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]]
    ) -> list[tuple[float, int]]:
        """The question's 6 tokens: -1 each after the OCR text, -2 after none; every answer -1."""
        asked = [prompt for prompt, reply in pairs if reply == "Is it?"]
        assert len(asked) == 2  # the question scored after the OCR text and after none
        return [((-1.0 if "image: HELLO" in prompt else -2.0) * 6, 6) if reply == "Is it?" else (-1.0, 1)
                for prompt, reply in pairs]

    monkeypatch.setattr(engine_module, "reply_loglikelihoods", likelier_question)
    item = EngineInput(system=None, text="Is it?", images=[b"png"], choices=YES_NO)
    (answer,) = engine.answer_batch([item], max_new_tokens=8, temperature=0.0, seed=None)
    assert answer.text == "Yes" and [score.support for score in answer.scores] == [1.0, 0.0]


def test_an_option_text_is_weighed_by_its_whole_text_pmi_so_a_constant_prior_cancels() -> None:
    # "Madrid" is likelier than "Paris" after the question (-4.0 vs -6.0 per token) only because it is
    # likelier after anything (-5.0 vs -9.0 after the content-free question): the question raised "Paris"
    # far more.
    madrid = Scored("A", "Madrid", conditional=-4.0, neutral=-4.0, prior=-5.0, tokens=2)
    paris = Scored("B", "Paris", conditional=-6.0, neutral=-6.0, prior=-9.0, tokens=2)
    assert [madrid.calibrated, paris.calibrated] == [2.0, 6.0] and best([madrid, paris]).answer == "B"
    # The same prior added to every option's likelihood in both contexts changes nothing.
    shifted = [Scored(s.answer, s.continuation, s.conditional - 1, s.neutral - 1, prior=(s.prior or 0) - 1,
                      tokens=2) for s in (madrid, paris)]
    assert [s.calibrated for s in shifted] == [2.0, 6.0]
    # Summed over the text's tokens, not per token: a longer text's log-ratio counts whole.
    assert Scored("C", "Paris, France", -1.0, -1.0, prior=-2.0, tokens=3).calibrated == 3.0


def test_the_engine_takes_each_option_texts_prior_after_a_content_free_question(
    engine: EmbeddedEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[tuple[str, str]]] = []

    def surface_prior(
        model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]]
    ) -> list[tuple[float, int]]:
        """'common' is likely anywhere (-1); 'apt' only after the question (-2), else -8; one token each."""
        calls.append(list(pairs))
        asked = [CONTENT_FREE not in prompt for prompt, _ in pairs]
        return [(-1.0 if reply == "common" else (-2.0 if question else -8.0), 1)
                for (_, reply), question in zip(pairs, asked, strict=True)]

    monkeypatch.setattr(engine_module, "reply_loglikelihoods", surface_prior)
    options = (Candidate("A", "common"), Candidate("B", "apt"))
    items = [EngineInput(system=None, text="Which fits?", choices=options) for _ in range(2)]
    answers = engine.answer_batch(items, max_new_tokens=8, temperature=0.0, seed=None)
    assert [answer.text for answer in answers] == ["B", "B"]
    assert [(s.prior, round(s.calibrated, 3)) for s in answers[0].scores] == [(-1.0, 0.0), (-8.0, 6.0)]
    # Each item's priors come from a call of their own: never batched with another item's.
    content_free = [call for call in calls if all(CONTENT_FREE in prompt for prompt, _ in call)]
    assert [[reply for _, reply in call] for call in content_free] == [["common", "apt"]] * 2


def test_answers_scored_as_themselves_keep_the_contextual_calibration(engine: EmbeddedEngine) -> None:
    item = EngineInput(system=None, text="Is HELLO written?", images=[b"png"], choices=YES_NO)
    (answer,) = engine.answer_batch([item], max_new_tokens=8, temperature=0.0, seed=None)
    assert all(score.prior is None for score in answer.scores)
