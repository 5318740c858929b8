"""Run configuration files: the settings of a run in YAML or JSON, flags on top, the manifest keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mmgauge
from mmgauge.api.request import RunConfig
from mmgauge.api.run_config import (
    SCHEMA_FILE,
    merge_run_config,
    read_run_config,
    request_from_config,
    schema_text,
)
from mmgauge.core.errors import UserError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yaml_file_gives_the_request_its_settings_and_defaults_the_rest(tmp_path: Path) -> None:
    config = write(tmp_path / "run.yaml", "model: mock\nbenchmarks: [MME]\ntemperature: 0.5\n"
                                          "options: {parser: words}\n")
    request = request_from_config(config)
    assert (request.model, request.benchmarks, request.temperature) == ("mock", ["mme"], 0.5)
    assert request.options == {"parser": "words"} and request.max_tokens == 512


def test_a_json_file_reads_the_same(tmp_path: Path) -> None:
    config = write(tmp_path / "run.json", json.dumps({"model": "mock", "limit": 3}))
    assert read_run_config(config) == {"model": "mock", "limit": 3}


def test_given_settings_override_the_file_and_options_merge_per_benchmark(tmp_path: Path) -> None:
    config = write(tmp_path / "run.yaml", "temperature: 0.5\nseed: 7\n"
                                          "options: {mme: {parser: words}, prompt: paper}\n")
    request = request_from_config(config, {"temperature": 0.0,
                                            "options": {"mme": {"x": 1}, "prompt": "vlmevalkit"}})
    assert (request.temperature, request.seed) == (0.0, 7)
    assert request.options == {"prompt": "vlmevalkit", "mme": {"parser": "words", "x": 1}}


def test_naming_fewer_benchmarks_drops_the_files_settings_for_the_others() -> None:
    file = {"benchmarks": ["mme", "mmbench"], "data": {"mme": "a", "mmbench": "b"},
            "options": {"mmbench": {"prompt": "paper"}, "parser": "words"}}
    merged = merge_run_config(file, {"benchmarks": ["mme"]})
    assert merged["data"] == {"mme": "a"} and merged["options"] == {"parser": "words"}


def test_an_unknown_key_is_refused_with_the_closest_one(tmp_path: Path) -> None:
    config = write(tmp_path / "run.yaml", "temprature: 0.5\n")
    with pytest.raises(UserError) as caught:
        read_run_config(config)
    assert str(caught.value) == f"{config}, field 'temprature': unknown key; did you mean 'temperature'?"


def test_a_value_of_the_wrong_type_names_its_field(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"field 'limit'"):
        read_run_config(write(tmp_path / "run.yaml", "limit: 0\n"))
    with pytest.raises(UserError, match=r"field 'model'"):
        read_run_config(write(tmp_path / "run.yaml", "model: {backend: mock}\n"))


def test_yaml_aliases_are_refused_with_their_line(tmp_path: Path) -> None:
    config = write(tmp_path / "run.yaml", "judge: &j mock\nmodel: *j\n")
    with pytest.raises(UserError) as caught:
        read_run_config(config)
    assert "run.yaml:2" in str(caught.value) and "aliases (*j) are not allowed" in str(caught.value)


def test_the_shipped_schema_is_the_one_generated_from_the_model() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text()
    schema = json.loads(schema_text())
    assert schema["additionalProperties"] is False and "command" not in schema["properties"]
    assert schema["properties"]["temperature"]["type"] == "number"


def test_the_manifest_records_the_merged_configuration(tmp_path: Path) -> None:
    data = tmp_path / "cache.sqlite"
    mmgauge.evaluate(model="mock", benchmarks="mme", out=tmp_path / "run", limit=2, cache_path=data,
                     options={"parser": "words"})
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    config = manifest["config"]
    assert config["model"] == "mock" and config["limit"] == 2 and config["options"] == {"parser": "words"}
    assert config["out"] == str((tmp_path / "run").absolute()) and config["cache_path"] == str(data)
    for given in (tmp_path / "run" / "manifest.json", tmp_path / "run"):
        assert RunConfig.model_validate(read_run_config(given)).model_dump(mode="json") == config


def test_a_manifest_without_a_configuration_is_refused(tmp_path: Path) -> None:
    mmgauge.evaluate(model="mock", benchmarks="mme", out=tmp_path / "run", limit=1, cache=False)
    path = tmp_path / "run" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["config"] = None
    path.write_text(json.dumps(manifest))
    with pytest.raises(UserError, match="records no run configuration"):
        read_run_config(path)
