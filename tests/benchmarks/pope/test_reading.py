"""Answers are read as POPE's evaluate.py reads them, quirks included; VLMEvalKit's reading on request."""

from __future__ import annotations

import pytest

from mmgauge.benchmarks.pope.reading import read_answer, read_official, read_vlmevalkit


@pytest.mark.parametrize(("text", "answer"), [
    ("Yes", "yes"), ("No", "no"), ("no", "no"), ("No.", "no"),
    ("No, there is no dog.", "no"),
    ("There is not a dog. Yes.", "no"),        # "not" in the first sentence
    ("Yes. There is no dog", "yes"),           # only the first sentence counts
    ("NO", "yes"), ("Nope", "yes"), ("Not at all", "yes"),  # only "No", "not", "no" are negations
    ("No\nThere is a dog", "yes"),             # split on " ": the word is "No\nThere"
    ("I don't know", "yes"), ("", "yes"),      # nothing is unreadable: the default is yes
    ("Non, il n'y a pas de vélo.", "yes"), ("いいえ", "yes"),
])
def test_the_official_rule(text: str, answer: str) -> None:
    assert read_official(text).answer == answer
    assert read_answer(text, "official").answer == answer


@pytest.mark.parametrize(("text", "answer"), [
    ("Yes", "yes"), ("NO", "no"), ("No\nThere is a dog", "no"), ("Yes. There is no dog", None),
    ("yes.", "yes"), ("no!", "no"), ("Not at all", None), ("(yes)", "yes"), ("Non, il n'y a pas", None),
])
def test_the_vlmevalkit_reading(text: str, answer: str | None) -> None:
    read = read_vlmevalkit(text)
    assert read.answer == answer
    assert (read.method == "vlmevalkit-unknown") == (answer is None)


def test_an_unknown_reader_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown POPE reader"):
        read_answer("yes", "words")
