"""User prompt template files: what they render, and the one-line errors for what they may not say."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.benchmarks.mmbench.prompts import TABLE as MMBENCH
from mmgauge.benchmarks.mme.prompts import TABLE as MME
from mmgauge.benchmarks.presets import PresetTable, PromptFields
from mmgauge.benchmarks.prompt_template import load_template
from mmgauge.core.errors import UserError

CHOICE = PromptFields(question="Which fruit?", options={"A": "apple", "B": "pear"}, hint="Look left.",
                      language="en")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error(path: Path, table: PresetTable = MMBENCH) -> str:
    with pytest.raises(UserError) as caught:
        load_template(path, table)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_yaml_template_renders_hint_block_options_and_letters(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", (
        "template: |-\n"
        "  {hint_block}Q: {question}\n"
        "  {options}\n"
        "  Reply with one of {letters}.\n"
    ))
    preset = load_template(path, MMBENCH)
    expected = "Hint: Look left.\nQ: Which fruit?\nA. apple\nB. pear\nReply with one of A, B."
    assert preset(CHOICE).text == expected
    no_hint = PromptFields(question="Which fruit?", options={"A": "apple", "B": "pear"}, language="en")
    assert preset(no_hint).text == "Q: Which fruit?\nA. apple\nB. pear\nReply with one of A, B."
    assert preset(CHOICE).images == "before" and preset(CHOICE).system is None


def test_yaml_formats_system_prompt_and_image_placement(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yml", (
        'template: "{hint_block}{question} {options} [{language}] {{literal}}"\n'
        'option_format: "({letter}) {text}"\n'
        'option_separator: "  "\n'
        'hint_format: "Context: {hint} | "\n'
        "system: You answer with one letter.\n"
        "images: after\n"
    ))
    prompt = load_template(path, MMBENCH)(CHOICE)
    assert prompt.text == "Context: Look left. | Which fruit? (A) apple  (B) pear [en] {literal}"
    assert prompt.system == "You answer with one letter." and prompt.images == "after"


def test_a_plain_text_file_is_the_template_without_its_final_line_break(tmp_path: Path) -> None:
    path = write(tmp_path, "mme.txt", "{question_stem}\nAnswer Yes or No.\n")
    prompt = load_template(path, MME)(PromptFields(question="Is it red? Please answer yes or no."))
    assert prompt.text == "Is it red?\nAnswer Yes or No."


def test_an_unknown_field_names_field_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "mme.yaml", "template: |\n  {question}\n  {options}\n")
    assert error(path, MME) == (
        f"{path}:3, field 'options': unknown field {{options}} in template; "
        "MME template knows: question, question_stem")


@pytest.mark.parametrize("placeholder", ["{question.__class__}", "{options[0]}", "{}", "{0}",
                                         "{question!r}", "{question:>40}"])
def test_only_plain_field_names_are_allowed(placeholder: str, tmp_path: Path) -> None:
    path = write(tmp_path, "t.txt", f"Q: {placeholder}")
    assert "only plain field names like {question} are allowed" in error(path)


def test_option_and_hint_formats_are_checked_too(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", 'template: "{options}"\noption_format: "{label}: {text}"\n')
    expected = "unknown field {label} in option_format; an option_format template knows: letter, text"
    assert expected in error(path)
    path = write(tmp_path, "h.yaml", 'template: "{hint_block}"\nhint_format: "{question}"\n')
    assert "unknown field {question} in hint_format" in error(path)


@pytest.mark.parametrize(("text", "expected"), [
    ("template: x\nprompt: y\n", "unknown key 'prompt'; a prompt template may have: template, option_format"),
    ("option_format: x\n", "field 'template': the prompt template has no 'template' key"),
    ("template: 5\n", "'template' must be text (quote it), not int"),
    ("template: x\nimages: sideways\n", "images must be one of: before, after (got 'sideways')"),
    ("template: '   '\n", "the prompt template is empty"),
    ("- a\n- b\n", "a YAML prompt template must be a mapping with a 'template' key"),
    ("template: [unclosed\n", "cannot read the prompt template as YAML"),
    ("template: 'Q: {question'\n", "cannot read the template: expected '}' before end of string"),
])
def test_bad_files_are_one_line_errors(text: str, expected: str, tmp_path: Path) -> None:
    message = error(write(tmp_path, "t.yaml", text))
    assert expected in message and str(tmp_path / "t.yaml") in message


def test_a_file_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"Q: \xff{question}")
    assert "not UTF-8 text" in error(path)


def test_the_key_follows_what_the_file_says_not_how_it_is_written(tmp_path: Path) -> None:
    block = load_template(write(tmp_path, "a.yaml", "template: |-\n  {question}\n  {options}\n"), MMBENCH)
    quoted = load_template(write(tmp_path, "b.yaml", 'template: "{question}\\n{options}"\n'), MMBENCH)
    other = load_template(write(tmp_path, "c.yaml", 'template: "{question} {options}"\n'), MMBENCH)
    assert block.key == quoted.key != other.key
    assert block.key.startswith("template:")
