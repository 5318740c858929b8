"""Preset tables: choosing a preset by name or template path, and turning a prompt into chat messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.m3gia.prompts import TABLE as M3GIA
from mmgauge.benchmarks.mmbench.prompts import TABLE as MMBENCH
from mmgauge.benchmarks.mme.prompts import TABLE as MME
from mmgauge.benchmarks.presets import Prompt
from mmgauge.core.errors import UserError
from mmgauge.core.types import ImagePart, ImageRef, TextPart

IMAGES = [ImageRef(path="a.png"), ImageRef(path="b.png")]


def test_messages_put_the_images_before_or_after_the_text() -> None:
    (before,) = Prompt("Q?").messages(IMAGES)
    assert [type(part) for part in before.content] == [ImagePart, ImagePart, TextPart]
    assert before.images() == IMAGES and before.text() == "Q?"
    (after,) = Prompt("Q?", images="after").messages(IMAGES)
    assert [type(part) for part in after.content] == [TextPart, ImagePart, ImagePart]


def test_a_system_prompt_becomes_a_system_message_first() -> None:
    system, user = Prompt("Q?", system="Be brief.").messages([])
    assert (system.role, system.text()) == ("system", "Be brief.")
    assert (user.role, user.text()) == ("user", "Q?")


def test_resolve_defaults_to_paper_and_ignores_case() -> None:
    assert MMBENCH.resolve(None).name == "paper"
    assert MME.resolve(" VLMEvalKit ").name == "vlmevalkit"
    assert M3GIA.resolve("PAPER").name == "paper"


def test_an_unknown_name_is_a_one_line_error_listing_the_choices() -> None:
    with pytest.raises(UserError) as caught:
        MME.resolve("openai")
    assert str(caught.value) == (
        "field '--prompt': unknown prompt 'openai' for MME; choose paper, vlmevalkit, lmms-eval, "
        "or a template file (.yaml or .txt)")


def test_a_path_is_a_template_and_a_missing_one_says_so(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("{question_stem} Answer yes or no.\n", encoding="utf-8")
    preset = MME.resolve(str(path))
    assert preset.source == f"user template file {path}"
    with pytest.raises(UserError, match="prompt template file not found"):
        MME.resolve(str(tmp_path / "absent.yaml"))
