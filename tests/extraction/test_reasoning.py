"""Reasoning blocks are removed before answers are read; text without them comes back unchanged."""

from __future__ import annotations

import pytest

from mmgauge.extraction.reasoning import strip_reasoning
from mmgauge.extraction.yesno import parse_yes_no


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("<think>The sign says STOP, so no.</think>\n\nYes", "Yes"),
        ("<THINK>upper case tags</THINK> No.", "No."),
        ("<thinking>a\nb</thinking>B", "B"),
        ("<reasoning>why</reasoning> The answer is C.", "The answer is C."),
        ("<reason>why</reason>A", "A"),
        ("◁think▷Kimi thinks here◁/think▷Yes", "Yes"),
        ("[THINK]Magistral thinks[/THINK]D", "D"),
        ("Okay, the image shows a cat.\n</think>\n\nYes", "Yes"),  # <think> was in the prompt
        ("<think>one</think> A <think>two</think>", "A"),
        ("<think>first</think><thinking>second</thinking> B", "B"),
    ],
)
def test_closed_and_leading_blocks_are_removed(text: str, answer: str) -> None:
    assert strip_reasoning(text) == (answer, True)


def test_text_without_reasoning_is_returned_unchanged() -> None:
    for text in ("  Yes, there is.  ", "", "B\n", "I think <b>bold</b> is C"):
        assert strip_reasoning(text) == (text, False)


def test_unclosed_block_leaves_only_what_came_before_it() -> None:
    # Cut off mid-thought: the half-finished reasoning is not an answer.
    assert strip_reasoning("<think>The answer might be B, but") == ("", True)
    assert strip_reasoning("Yes <think>second thoughts that never end") == ("Yes", True)
    assert strip_reasoning("<think>done</think> A <think>more") == ("A", True)


def test_the_official_mme_parser_reads_the_answer_after_stripping() -> None:
    raw = "<think>Is there a cat? I see whiskers.</think>\nYes"
    assert parse_yes_no(raw, "official").answer != "yes"  # the raw text starts with "<thi": read as other
    assert parse_yes_no(strip_reasoning(raw)[0], "official").answer == "yes"
