"""What the vllm backend refuses before a run starts, and what it asks of the run: decoding settings,
the revision of a cached checkpoint, the GPUs a Ray worker reserves. Against the vLLM 0.33 stand-in."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends import vllm as vllm_backend
from mmgauge.backends.vllm import VLLMBackend
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig
from mmgauge.runner import ray_executor
from mmgauge.testing import vllm_standin
from mmgauge.testing.toy import write_toy_data


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> None:
    vllm_standin.LLM.instances.clear()
    modules: dict[str, Any] = {}
    vllm_standin.install(modules)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(vllm_backend, "_vllm_installed", lambda: True)


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlavaForConditionalGeneration"]}))
    (folder / "model.safetensors").write_bytes(b"\0" * 64)
    return folder


def model_file(folder: Path, model_dir: Path, options: dict[str, Any]) -> Path:
    path = folder / "model.json"
    path.write_text(json.dumps({"backend": "vllm", "path": str(model_dir), "options": options}))
    return path


@pytest.mark.parametrize(
    ("update", "message"),
    [
        ({"temperature": 2.5}, "vLLM takes a temperature of at most 2, not 2.5"),
        ({"temperature": 0.7, "seed": -1}, "needs a seed >= 0, not -1"),
    ],
)
def test_decoding_settings_vllm_would_refuse_or_leave_unseeded_are_refused(
    standin: None, model_dir: Path, update: dict[str, Any], message: str
) -> None:
    backend = VLLMBackend(str(model_dir))
    with pytest.raises(UserError, match=message):
        backend.check_generation(GenerationConfig(**update))
    backend.check_generation(GenerationConfig(temperature=2.0, seed=0))
    backend.check_generation(GenerationConfig(temperature=0.0, seed=-1))  # greedy: vLLM never sees the seed


@pytest.mark.parametrize(
    ("flags", "message"),
    [(["--temperature", "3"], "--temperature"), (["--temperature", "1", "--seed", "-1"], "--seed")],
)
def test_the_run_stops_in_one_line_before_loading_the_engine(
    standin: None, toy: None, model_dir: Path, tmp_path: Path, cli: Any, flags: list[str], message: str
) -> None:
    data = write_toy_data(tmp_path / "data", 2)
    result = cli("run", "--model", f"vllm:{model_dir}", "--bench", "toy", "--data", data,
                 "--out", tmp_path / "out", *flags)
    assert result.code == 2 and result.err.startswith("error: ") and message in result.err
    assert len(result.err.strip().splitlines()) == 1 and not vllm_standin.LLM.instances


def test_revision_picks_that_snapshot_from_the_local_cache(
    standin: None, model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    repo = tmp_path / "hub" / "models--org--tiny"
    (repo / "refs").mkdir(parents=True)
    (repo / "blobs").mkdir()
    for ref, commit, weights in (("main", "a" * 40, b"\0"), ("v2", "b" * 40, b"\1")):
        (repo / "refs" / ref).write_text(commit)
        (repo / "snapshots" / commit).mkdir(parents=True)
        for name, content in (("config.json", b"{}"), ("model.safetensors", weights * 64)):
            blob = repo / "blobs" / hashlib.sha256(content).hexdigest()
            blob.write_bytes(content)
            (repo / "snapshots" / commit / name).symlink_to(Path("..", "..", "blobs", blob.name))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))

    latest, v2 = VLLMBackend("org/tiny"), VLLMBackend("org/tiny", options={"revision": "v2"})
    assert (latest.directory.name, v2.directory.name) == ("a" * 40, "b" * 40)
    assert latest.fingerprint() != v2.fingerprint()
    assert "revision" not in v2.engine_kwargs()  # the folder is that revision; vLLM would ignore it anyway
    with pytest.raises(UserError, match="at revision 'v9'"):
        VLLMBackend("org/tiny", options={"revision": "v9"})
    with pytest.raises(UserError, match="not a folder"):
        VLLMBackend(str(model_dir), options={"revision": "v2"})
    shutil.rmtree(tmp_path / "hub")


@pytest.mark.parametrize(
    ("options", "given", "reserved"),
    [
        ({}, None, 1.0),
        ({"tensor_parallel_size": 2, "pipeline_parallel_size": 2}, None, 4.0),
        ({"tensor_parallel_size": 2}, 4.0, 4.0),
        ({"tensor_parallel_size": 4, "distributed_executor_backend": "ray"}, None, 0.0),
    ],
)
def test_a_ray_worker_reserves_the_gpus_of_one_engine(
    standin: None, model_dir: Path, options: dict[str, Any], given: float | None, reserved: float
) -> None:
    assert VLLMBackend(str(model_dir), options=options).ray_gpus(given) == reserved


@pytest.mark.parametrize(
    ("options", "given", "message"),
    [
        ({"tensor_parallel_size": 2, "pipeline_parallel_size": 2}, 1.0, "needs 4 GPUs per engine"),
        ({"distributed_executor_backend": "ray"}, 1.0, "distributed_executor_backend: ray"),
    ],
)
def test_inconsistent_ray_gpu_settings_stop_before_any_worker_starts(
    standin: None, toy: None, model_dir: Path, tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch,
    options: dict[str, Any], given: float, message: str,
) -> None:
    started: list[Any] = []
    monkeypatch.setattr(ray_executor, "RayExecutor", lambda *args, **kwargs: started.append(kwargs))
    model = model_file(tmp_path, model_dir, options)
    data = write_toy_data(tmp_path / "data", 2)
    result = cli("run", "--model", model, "--bench", "toy", "--data", data, "--out", tmp_path / "out",
                 "--executor", "ray", "--ray-gpus-per-worker", str(given))
    assert result.code == 2 and message in result.err and len(result.err.strip().splitlines()) == 1
    assert started == []


def test_the_ray_executor_gets_the_backends_reservation_by_default(
    standin: None, toy: None, model_dir: Path, tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[Any] = []

    def capture(*args: Any, options: ray_executor.RayOptions, **kwargs: Any) -> None:
        started.append(options)
        raise UserError("stopped here by the test")

    monkeypatch.setattr(ray_executor, "RayExecutor", capture)
    model = model_file(tmp_path, model_dir, {"tensor_parallel_size": 2})
    data = write_toy_data(tmp_path / "data", 2)
    result = cli("run", "--model", model, "--bench", "toy", "--data", data, "--out", tmp_path / "out",
                 "--executor", "ray")
    assert "stopped here by the test" in result.err
    assert [options.gpus_per_worker for options in started] == [2.0]
