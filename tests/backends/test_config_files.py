"""Model config files: a misspelled key is an error naming it; YAML aliases are refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mmgauge.backends.spec import parse_spec
from mmgauge.core.errors import UserError

BASE = "backend: openai\nmodel: m\nbase_url: http://h:1/v1\n"


def error_for(tmp_path: Path, text: str, name: str = "model.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UserError) as caught:
        parse_spec(str(path))
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    return message


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("setings:\n  concurrency: 4\n", "field 'setings': unknown key 'setings' (did you mean 'settings'?)"),
        (
            "settings: {timeout: 5}\n",
            "field 'settings.timeout': unknown setting 'timeout' (did you mean 'timeout_s'?)",
        ),
        ("settings: {concurency: 5}\n", "did you mean 'concurrency'?"),
        ("settings: {concurrency: many}\n", "field 'settings.concurrency'"),
        ("settings: [1]\n", "field 'settings'"),
        ("colour: blue\n", "unknown key 'colour'; known: backend, model"),
        ("request: {extra_bdy: {}}\n", "field 'request.extra_bdy': unknown request option 'extra_bdy'"),
        ("options: {request: {headerz: {}}}\n", "field 'options.request.headerz'"),
    ],
)
def test_unknown_or_misspelled_keys_are_named(tmp_path: Path, extra: str, expected: str) -> None:
    assert expected in error_for(tmp_path, BASE + extra)


def test_json_config_files_are_checked_the_same_way(tmp_path: Path) -> None:
    text = '{"backend": "openai", "model": "m", "base_url": "http://h:1/v1", "settings": {"retries": 2}}'
    assert "unknown setting 'retries'" in error_for(tmp_path, text, "model.json")


def test_yaml_aliases_are_refused_with_their_line(tmp_path: Path) -> None:
    message = error_for(tmp_path, "backend: openai\nmodel: &name m\nbase_url: *name\n")
    assert "model.yaml:3" in message and "aliases (*name) are not allowed" in message


def test_an_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    started = time.monotonic()
    assert "aliases" in error_for(tmp_path, "\n".join(lines) + "\n")
    assert time.monotonic() - started < 5  # 9**10 items were never built


def test_a_valid_config_file_with_every_section(tmp_path: Path) -> None:
    path = tmp_path / "model.yaml"
    path.write_text(
        "spec: openai:m@http://h:1/v1|http://h:2/v1\napi_key_env: MY_KEY\n"
        "settings: {concurrency: 4, unreachable_timeout_s: 30, max_response_bytes: 100000}\n"
        "request: {max_completion_tokens: true}\n"
    )
    spec, settings = parse_spec(str(path))
    assert spec.options == {"base_urls": ["http://h:1/v1", "http://h:2/v1"],
                            "request": {"max_completion_tokens": True}}
    assert spec.api_key_env == "MY_KEY"
    assert settings == {"concurrency": 4, "unreachable_timeout_s": 30, "max_response_bytes": 100000}


def test_request_given_twice_is_an_error(tmp_path: Path) -> None:
    text = BASE + "options: {request: {headers: {}}}\nrequest: {headers: {}}\n"
    assert "give the request section once" in error_for(tmp_path, text)


def test_unknown_setting_overrides_are_named() -> None:
    from mmgauge.backends.spec import load_backend

    with pytest.raises(UserError, match="field 'timeout': unknown setting 'timeout'"):
        load_backend("mock", timeout=5)
