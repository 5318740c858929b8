"""The official MMBench matcher, branch by branch, and the judge reading with the same rules."""

from __future__ import annotations

import asyncio

import pytest

from mmgauge.extraction.choice import (
    FAILURE_MARKER,
    ChoiceMatcher,
    judge_choice,
    match_choice,
    match_choices,
    random_choice,
)
from mmgauge.extraction.judge import Judge
from mmgauge.testing.scripted import ScriptedBackend

OPTIONS = {"A": "teddy bear", "B": "rubber duck", "C": "toy car", "D": "kite"}


@pytest.mark.parametrize(
    ("text", "answer", "method"),
    [
        ("A", "A", "rule-letter"),
        ("A teddy bear", "A", "rule-letter"),  # A is a whole token, first and within the last 4 tokens
        ("(B)", "B", "rule-letter"),
        ("**C**", "C", "rule-letter"),  # asterisks are separators
        ("Answer: D.", "D", "rule-letter"),
        ("I think it is {C}!", "C", "rule-letter"),
        ("Z", "Z", "rule-letter"),  # lone Z: no option fits
        ("None of them fit, so Z", "Z", "rule-letter"),
        ("E", None, "unresolved"),  # E is not an option of this question
        # one letter, first seen before the last 4 tokens: not rule 2; rule 3 catches it
        ("The answer is C because the car has wheels and is small", "C", "rule-regex"),
        ("The correct answer is **B** since ducks float on water all day", "B", "rule-regex"),
        ("the ANSWER IS D, since it flies high in the sky every windy day", "D", "rule-regex"),
        # two letters as tokens: not rule 2; "answer is" decides
        ("A or B? The answer is B", "B", "rule-regex"),
        # "answer is X" where X is not an option of this question falls through
        ("I would say the answer is E for sure, not anything else at all", None, "unresolved"),
        ("The answer is Cat", None, "unresolved"),  # X must not run on into a word
        # rule 4: the option text, short answer
        ("It is a rubber duck.", "B", "rule-text"),
        ("kite", "D", "rule-text"),
        # two option texts named: unresolved
        ("Either the teddy bear or the kite.", None, "unresolved"),
        ("", None, "unresolved"),
        (f"error: {FAILURE_MARKER} (timeout)", None, "failure"),
        (f"A {FAILURE_MARKER}", None, "failure"),  # the marker wins over a letter
    ],
)
def test_rules(text: str, answer: str | None, method: str) -> None:
    found = match_choice(text, OPTIONS)
    assert (found.answer, found.method) == (answer, method)


def test_last_four_tokens_boundary() -> None:
    # tokens: w1 w2 w3 A x y z -> A is the 4th from the end: accepted
    assert match_choice("w1 w2 w3 A x y z", OPTIONS).answer == "A"
    # one more token after it: A is the 5th from the end, so rule 2 refuses; nothing else decides
    found = match_choice("w1 w2 w3 A x y z q", OPTIONS)
    assert (found.answer, found.method) == (None, "unresolved")
    # the FIRST occurrence counts, even when the letter occurs again at the end
    assert match_choice("A is w1 w2 w3 w4 then A", OPTIONS).method == "unresolved"


def test_lone_z_only_without_option_letters() -> None:
    assert match_choice("Z or A", OPTIONS).answer == "A"  # one option letter: Z is ignored
    assert match_choice("zebra", OPTIONS).method == "unresolved"  # lower case z words are not Z


def test_text_rule_length_condition() -> None:
    options = {"A": "cat", "B": "dog"}  # total option text 6 characters: answers up to 12 may use rule 4
    assert match_choice("a small cat.", options).answer == "A"  # 12 characters
    assert match_choice("a smaller cat", options).method == "unresolved"  # 13 characters


def test_long_explanation_naming_two_options_is_unresolved() -> None:
    text = (
        "Looking at the picture, option A seems plausible because of the fur, but option B might also be "
        "right because of the colour; it is hard to tell without more context."
    )
    assert match_choice(text, OPTIONS).method == "unresolved"


def test_only_options_of_this_question_count() -> None:
    two = {"A": "yes", "B": "no"}
    assert match_choice("C", two).method == "unresolved"
    assert match_choice("The answer is C because it is so obviously right", two).method == "unresolved"


def test_match_choices_agrees_with_match_choice() -> None:
    texts = ["A", "It is a rubber duck.", "B C", "The answer is C because", FAILURE_MARKER, "kite"]
    two = {"A": OPTIONS["A"], "B": OPTIONS["B"]}
    found = match_choices(texts, [OPTIONS] * 5 + [two])
    expected = [match_choice(text, OPTIONS) for text in texts[:5]]
    assert [f.answer for f in found[:5]] == [e.answer for e in expected]
    assert [f.method for f in found[:5]] == [e.method for e in expected]
    assert (found[5].answer, found[5].method) == (None, "unresolved")  # "kite" is D, not offered


def test_judge_reads_reply_with_the_rules() -> None:
    backend = ScriptedBackend(["I am not sure", "B"])
    judge = Judge(backend)
    found = asyncio.run(judge_choice(judge, "What floats?", OPTIONS, "the yellow one"))
    assert (found.answer, found.method, found.judge_reply) == ("B", "judge", "B")
    assert judge.calls == 2
    assert "Question: What floats?" in backend.prompts[0] and "B. rubber duck" in backend.prompts[0]
    assert backend.prompts[0] != backend.prompts[1]  # retries change the prompt, so caches do not repeat it


def test_judge_z_is_a_decision_and_three_tries_at_most() -> None:
    judge = Judge(ScriptedBackend(["Z"]))
    assert asyncio.run(judge_choice(judge, "q", OPTIONS, "nothing")).answer == "Z"
    judge = Judge(ScriptedBackend(["hmm", "ERROR:down", "still unsure", "A"]))
    found = asyncio.run(judge_choice(judge, "q", OPTIONS, "something"))
    assert (found.answer, found.method) == (None, "unresolved")
    assert judge.calls == 3
    assert found.detail is not None and "judge unavailable" in found.detail


def test_random_choice_is_seeded_per_sample() -> None:
    first = random_choice("17", "ABCD", seed=3)
    assert first == random_choice("17", "ABCD", seed=3)
    assert first.method == "random" and first.answer in "ABCD"
    picks = {random_choice(str(i), "ABCD", seed=0).answer for i in range(40)}
    assert picks == set("ABCD")


def test_a_matcher_reading_answers_as_they_arrive_reads_them_as_the_rules_do() -> None:
    two = {"A": "teddy bear", "B": "kite"}
    other = {"A": "rubber duck", "B": "toy car", "C": "teddy bear", "D": "kite"}
    texts = ["A", "It is a kite.", "C", "Z", "The answer is D.", f"{FAILURE_MARKER} timeout", "teddy bear",
             "B C", "the answer is c", "A"]
    # Each text again with other options, some offering fewer letters: what the letters or the option texts
    # decide must change with them, what the text alone decides must not.
    stream = [(text, options) for options in (OPTIONS, two, other, OPTIONS) for text in texts]
    matcher = ChoiceMatcher()
    read = [extraction for start in range(0, len(stream), 3) for extraction in matcher.match(
        [text for text, _ in stream[start:start + 3]], [options for _, options in stream[start:start + 3]])]
    assert read == match_choices([text for text, _ in stream], [options for _, options in stream])
    assert [e.answer for e in read[:len(texts)]] == ["A", "D", "C", "Z", "D", None, "A", None, None, "A"]
    assert read[len(texts) + 1].answer == "B" and read[len(texts) + 2].answer is None  # "kite", no C
    assert read[2 * len(texts) + 6].answer == "C"  # "teddy bear" is C there


def test_a_matcher_stops_remembering_at_its_limit_and_still_reads_right() -> None:
    matcher = ChoiceMatcher(limit=2)
    texts = ["A", "B", "C", "D", "A", "D"]
    assert [e.answer for e in matcher.match(texts, [OPTIONS] * len(texts))] == texts
    assert [e.answer for e in matcher.match(["D"], [OPTIONS])] == ["D"]
    assert len(matcher._decided) == 2
