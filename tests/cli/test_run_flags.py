"""`mmgauge run --config FILE`: flags override the file; a finished run's manifest asks its requests again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mmgauge.api.run_config import schema_text
from mmgauge.testing.server import FakeOpenAIServer
from mmgauge.testing.toy import write_toy_data


def records(run: Path) -> dict[tuple[str, str, int], dict[str, Any]]:
    lines = (run / "samples.jsonl").read_text().splitlines()
    found = [json.loads(line) for line in lines if line.strip()]
    return {(r["benchmark"], r["sample_id"], r["round"]): r for r in found}


def test_an_unknown_key_is_one_line_with_a_suggestion(cli: Any, tmp_path: Path,
                                                      monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    Path("run.yaml").write_text("model: mock\ntemprature: 0.5\n")
    line = cli("run", "--config", "run.yaml").error_line()
    assert line == "error: run.yaml, field 'temprature': unknown key; did you mean 'temperature'?"
    assert not Path("runs").exists()


def test_flags_override_the_file_and_the_manifest_records_the_merge(cli: Any, toy: None,
                                                                    tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 4)
    config = tmp_path / "run.yaml"
    config.write_text(f"model: mock\nbenchmarks: [toy]\ndata: {{toy: {data}}}\ntemperature: 0.5\n"
                      f"seed: 3\nlimit: 2\nout: {tmp_path / 'from-file'}\ncache: false\n")
    out = tmp_path / "from-flags"
    result = cli("run", "--config", config, "--temperature", "0.25", "--out", out, "-q")
    assert result.code == 0, result.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["generation"]["temperature"] == 0.25 and manifest["generation"]["seed"] == 3
    assert manifest["config"]["limit"] == 2 and manifest["config"]["temperature"] == 0.25
    assert manifest["config"]["data"] == {"toy": str(data)}
    assert not (tmp_path / "from-file").exists()


def test_data_flag_belongs_to_the_files_single_benchmark(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 3)
    config = tmp_path / "run.json"
    config.write_text(json.dumps({"model": "mock", "benchmarks": ["toy"], "cache": False}))
    result = cli("run", "-c", config, "--data", data, "--out", tmp_path / "o", "-q")
    assert result.code == 0, result.err
    assert len(records(tmp_path / "o")) == 3


def test_a_finished_run_is_asked_again_from_its_manifest(cli: Any, toy: None, tmp_path: Path) -> None:
    data = write_toy_data(tmp_path / "d", 5)
    first, second = tmp_path / "first", tmp_path / "second"
    with FakeOpenAIServer() as server:
        model = f"openai:m@{server.base_url}"
        ran = cli("run", "--model", model, "--bench", "toy", "--data", data, "--out", first,
                  "--temperature", "0.3", "--max-tokens", "64", "--seed", "5", "--system-prompt", "Be brief.",
                  "--no-cache")
        assert ran.code == 0, ran.err
        asked = server.requests
        again = cli("run", "--config", first / "manifest.json", "--out", second)
        assert again.code == 0, again.err
        assert server.requests == 2 * asked
        one, two = records(first), records(second)
        assert one.keys() == two.keys() and len(one) == 5
        for key in one:
            assert one[key]["fingerprint"] == two[key]["fingerprint"]
            assert one[key]["prompt"] == two[key]["prompt"]
        # Into its own folder: everything is there already, nothing is asked.
        resumed = cli("run", "--config", first)
        assert resumed.code == 0, resumed.err
        assert server.requests == 2 * asked


def test_the_schema_command_prints_the_shipped_schema(cli: Any) -> None:
    result = cli("schema", "run-config")
    assert result.code == 0 and result.out == schema_text()
