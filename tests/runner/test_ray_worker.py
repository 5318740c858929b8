"""The Ray worker's start, without a cluster: the actor class is a plain class until the driver wraps it."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends import vllm as vllm_backend
from mmgauge.backends.base import BackendSettings
from mmgauge.core.errors import EndpointError
from mmgauge.core.types import ModelSpec
from mmgauge.runner.ray_worker import RayWorker, WorkerInfo
from mmgauge.testing import vllm_standin


@pytest.fixture
def vllm_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> RayWorker:
    vllm_standin.LLM.instances.clear()
    modules: dict[str, Any] = {}
    vllm_standin.install(modules)
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(vllm_backend, "_vllm_installed", lambda: True)
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["LlavaForConditionalGeneration"]}))
    spec = ModelSpec(backend="vllm", path=str(tmp_path), options={"tensor_parallel_size": 2})
    return RayWorker(spec.model_dump_json(), BackendSettings().model_dump_json())


def test_a_vllm_worker_loads_its_engine_when_it_starts(vllm_worker: RayWorker) -> None:
    info = WorkerInfo.model_validate_json(asyncio.run(vllm_worker.info()))
    assert info.error is None and info.fingerprint
    (llm,) = vllm_standin.LLM.instances
    assert llm.kwargs["tensor_parallel_size"] == 2


def test_an_engine_that_cannot_load_is_the_workers_error_in_one_line(
    vllm_worker: RayWorker, monkeypatch: pytest.MonkeyPatch
) -> None:
    def out_of_memory(**kwargs: Any) -> None:
        raise RuntimeError("CUDA out of memory\ntraceback lines")

    monkeypatch.setattr(sys.modules["vllm"], "LLM", out_of_memory)
    info = WorkerInfo.model_validate_json(asyncio.run(vllm_worker.info()))
    assert info.error is not None and info.error.kind == "endpoint"
    error = info.error.exception()
    assert isinstance(error, EndpointError) and "CUDA out of memory" in str(error) and "\n" not in str(error)
