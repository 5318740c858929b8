from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.backends.spec import parse_spec
from mmgauge.core.errors import UserError
from mmgauge.testing.plugins import install


def test_grammar() -> None:
    spec, _ = parse_spec("openai:Qwen2-VL-7B@http://localhost:8000/v1")
    assert (spec.backend, spec.model, spec.base_url) == ("openai", "Qwen2-VL-7B", "http://localhost:8000/v1")
    spec, _ = parse_spec("openai:org/model:tag@http://a:1/v1|http://b:2/v1")
    assert spec.model == "org/model:tag" and spec.options["base_urls"] == ["http://a:1/v1", "http://b:2/v1"]
    assert parse_spec("hf:/models/llava")[0].path == "/models/llava"
    assert parse_spec("replay:preds.tsv")[0].path == "preds.tsv"
    assert parse_spec("embedded")[0].backend == "embedded"
    assert parse_spec("mock")[0].model == "yes"
    assert parse_spec("mock:no")[0].model == "no"


@pytest.mark.parametrize("bad", ["", "gpt4", "openai:model", "openai:@http://x", "openai:m@ftp://x", "hf:"])
def test_bad_specs_are_user_errors(bad: str) -> None:
    with pytest.raises(UserError):
        parse_spec(bad)


def test_config_file(tmp_path: Path) -> None:
    path = tmp_path / "model.yaml"
    path.write_text(
        "backend: openai\nmodel: m\nbase_url: http://h:1/v1\napi_key_env: MY_KEY\n"
        "settings:\n  concurrency: 4\n"
    )
    spec, settings = parse_spec(str(path))
    assert spec.api_key_env == "MY_KEY" and settings == {"concurrency": 4}
    bad = tmp_path / "bad.yaml"
    bad.write_text("backend: [unclosed\n")
    with pytest.raises(UserError, match=r"bad\.yaml"):
        parse_spec(str(bad))
    with pytest.raises(UserError, match="not found"):
        parse_spec(str(tmp_path / "missing.json"))


PLUGINS = '''
from mmgauge.backends.base import Backend
from mmgauge.backends.openai import OpenAIBackend
from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelSpec


class DiceBackend(Backend):
    """`dice:SIDES`: a grammar of its own."""

    @classmethod
    def read_spec(cls, name, rest):
        if not rest.isdigit():
            raise UserError(f"'{name}:{rest}' needs a number of sides: {name}:SIDES", field="--model")
        return ModelSpec(backend=name, model=f"d{rest}", options={"sides": int(rest)})

    @classmethod
    def from_spec(cls, spec, settings):
        return cls()

    def fingerprint(self):
        return "dice"

    async def generate(self, batch):
        return []


class HostedBackend(OpenAIBackend):
    """An OpenAI-format API with a home of its own."""

    provider = "hosted"
    default_base_url = "https://api.hosted.example/v1"
'''


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two plug-in backends, installed as a package would be (a module and its dist-info on the path)."""
    install(tmp_path, "mmgauge-spec-plugins", {"mmgauge_spec_plugins.py": PLUGINS},
            {"mmgauge.backends": {"dice": "mmgauge_spec_plugins:DiceBackend",
                                  "hosted": "mmgauge_spec_plugins:HostedBackend"}})
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.mark.usefixtures("plugins")
def test_a_plugin_backend_reads_its_own_spec() -> None:
    spec, _ = parse_spec("dice:20")
    assert (spec.backend, spec.model, spec.options) == ("dice", "d20", {"sides": 20})
    with pytest.raises(UserError, match="needs a number of sides: dice:SIDES"):
        parse_spec("dice:many")


@pytest.mark.usefixtures("plugins")
def test_a_plugin_on_the_http_wrapper_reads_the_providers_grammar_with_its_own_default_url() -> None:
    spec, _ = parse_spec("hosted:big-model")
    assert (spec.model, spec.base_url, spec.options) == ("big-model", "https://api.hosted.example/v1", {})
    spec, _ = parse_spec("hosted:big-model@http://a:1/v1|http://b:2/v1")
    assert spec.base_url == "http://a:1/v1" and spec.options["base_urls"] == ["http://a:1/v1", "http://b:2/v1"]
    with pytest.raises(UserError, match="not a valid URL"):
        parse_spec("hosted:big-model@http://a:1/v1|http://:80/v1")
