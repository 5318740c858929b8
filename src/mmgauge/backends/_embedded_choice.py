"""How the embedded model picks one of a question's allowed answers: by calibrated likelihood, not generation.

A 135M text model asked to answer freely says "No" to nearly every yes/no question and "B" to most choice
questions, whatever the OCR text says: its prior, not the image. So each allowed answer is scored instead:
its log-likelihood per token as the assistant's reply given the OCR text and the question, minus the same
given the question with no text found (contextual calibration). What is left is how much the text read in
the image moves the model towards that answer. (An option text goes further; see the last paragraph.)

An option of a choice question is scored by its text and answered with its letter: a letter alone carries
too little for the OCR text to move it, and a text scores the same wherever the option is shown.

The model moves "Yes" and "No" hardly at all with the text (on the built-in MME sample the calibrated "Yes"
is no likelier where the asked word was read than where it was not), so an answer that affirms the question
also gets the question's own support: how much likelier, per token, the OCR text makes the question's words
(which a small model does tell: it copies). Where the OCR found nothing every term is 0 and the model's own
preference (the uncalibrated likelihood) decides.

Option texts differ in how common their words are ("Madrid" is likelier than "Paris" after almost anything),
and that surface prior, not the question, decided most choice questions with no text read. So an option
scored by its text is weighed by its whole-text pointwise mutual information with the context (domain-
conditional PMI): its summed log-likelihood after the OCR text and the question, minus after a content-free
question in the same chat (which contains the OCR effect above: conditional - neutral, plus how much the
question itself moves the text). Summed, not per token: it is the log-ratio of the text's probabilities.
Pure functions over the scores; the engine computes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

#: What a candidate's likelihood is taken of: the answer itself ("Yes", "B") or the option text it stands for.
ScoredBy = Literal["answer", "text"]


@dataclass(frozen=True)
class Candidate:
    """An allowed answer: what to reply (`answer`) and the option text it stands for ('' when none)."""

    answer: str
    text: str = ""
    affirms: bool = False


@dataclass(frozen=True)
class Scored:
    """One candidate's scores: mean log-likelihood per token of `continuation` given the OCR text
    (`conditional`) and given no text (`neutral`), and for an affirming answer the question's support (see
    the module); `calibrated` is what decides."""

    answer: str
    continuation: str
    conditional: float
    neutral: float
    support: float = 0.0
    #: For an option scored by its text: the same text's mean log-likelihood per token after a content-free
    #: question (`_embedded_prompt.CONTENT_FREE`), and its token count; None for an answer scored as itself.
    prior: float | None = None
    tokens: int = 1

    @property
    def calibrated(self) -> float:
        if self.prior is not None:
            # Whole-text pointwise mutual information with the OCR text and the question (see the module).
            return (self.conditional - self.prior) * self.tokens
        return self.conditional - self.neutral + self.support


def scored_by(candidates: Sequence[Candidate]) -> ScoredBy:
    """Options are weighed by their texts when every candidate has one, and the texts differ."""
    texts = [candidate.text.strip() for candidate in candidates]
    return "text" if all(texts) and len(set(texts)) == len(texts) else "answer"


def continuations(candidates: Sequence[Candidate]) -> list[str]:
    """What the model's reply is scored as, per candidate."""
    by = scored_by(candidates)
    return [candidate.text.strip() if by == "text" else candidate.answer for candidate in candidates]


def best(scores: Sequence[Scored]) -> Scored:
    """The candidate the OCR text favours most; ties (no text read, say) go to the model's own preference,
    then to the first offered, so the choice never depends on anything but these scores."""
    ranked = sorted(enumerate(scores), key=lambda pair: (-pair[1].calibrated, -pair[1].conditional, pair[0]))
    return ranked[0][1]
