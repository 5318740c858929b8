"""The hf backend on CPU, against a tiny random-weight Llava built and saved in the test (no download)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends.base import BackendSettings, Request
from mmgauge.backends.hf import EXTRA_HINT, HFBackend
from mmgauge.core.errors import UserError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse, ModelSpec
from mmgauge.testing.toy import tiny_png

pytest.importorskip("torch")
pytest.importorskip("transformers")

pytestmark = pytest.mark.slow

GREEDY = GenerationConfig(max_tokens=6)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mmgauge.testing.tiny_vlm import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-llava"))


@pytest.fixture(scope="module")
def backend(model_dir: Path) -> Iterator[HFBackend]:
    loaded = HFBackend(str(model_dir), batch_size=2)
    loaded.load()
    yield loaded
    asyncio.run(loaded.aclose())


def requests(config: GenerationConfig = GREEDY) -> list[Request]:
    messages = [
        Message.user("Is there a red circle?", [ImageRef(data=tiny_png(1))]),
        Message.user("Which option?", [ImageRef(data=tiny_png(2))]),
        Message.user("Describe the picture in one short sentence."),
    ]
    return [Request(messages=[message], config=config) for message in messages]


def run(backend: HFBackend, batch: Sequence[Request]) -> list[ModelResponse]:
    return asyncio.run(backend.generate(batch))


def count_generate_calls(backend: HFBackend, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the batch size of every model.generate call."""
    model = backend.load().model
    original = model.generate
    sizes: list[int] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        sizes.append(int(kwargs["input_ids"].shape[0]))
        return original(*args, **kwargs)

    monkeypatch.setattr(model, "generate", spy)
    return sizes


def test_batch_with_images_and_text_only(backend: HFBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = count_generate_calls(backend, monkeypatch)
    responses = run(backend, requests())
    assert sizes == [2, 1]
    assert len(responses) == 3
    for response in responses:
        assert response.error is None and response.text is not None
        assert response.usage.prompt_tokens and response.usage.completion_tokens
        assert 1 <= response.usage.completion_tokens <= GREEDY.max_tokens
        assert response.latency_s > 0
    # Each image expands to 16 placeholder tokens (32 px / 8 px patches, squared) in the prompt.
    image_prompt, text_prompt = responses[0].usage.prompt_tokens, responses[2].usage.prompt_tokens
    assert image_prompt is not None and text_prompt is not None and image_prompt > 16


def test_greedy_is_deterministic_and_independent_of_batching(backend: HFBackend) -> None:
    first = [r.text for r in run(backend, requests())]
    assert [r.text for r in run(backend, requests())] == first
    # Left padding must not change what a row generates: one request at a time gives the same answers.
    alone = [run(backend, [request])[0].text for request in requests()]
    assert alone == first


def test_max_tokens_limits_the_answer(backend: HFBackend) -> None:
    short = GenerationConfig(max_tokens=2)
    for response in run(backend, requests(short)):
        assert response.ok
        assert response.usage.completion_tokens is not None and response.usage.completion_tokens <= 2


def test_sampling_is_reproducible_with_a_seed(backend: HFBackend) -> None:
    sampled = GenerationConfig(temperature=1.0, top_p=0.9, seed=7, max_tokens=6)
    first = [r.text for r in run(backend, requests(sampled))]
    assert [r.text for r in run(backend, requests(sampled))] == first


def test_system_prompt_and_mixed_configs(backend: HFBackend) -> None:
    with_system = GenerationConfig(max_tokens=3, system_prompt="Answer briefly.")
    batch = [requests()[0], requests(with_system)[2]]
    responses = run(backend, batch)
    assert all(r.ok for r in responses)
    assert responses[1].usage.completion_tokens is not None and responses[1].usage.completion_tokens <= 3
    plain = run(backend, [requests(GenerationConfig(max_tokens=3))[2]])[0]
    assert plain.usage.prompt_tokens is not None and responses[1].usage.prompt_tokens is not None
    assert responses[1].usage.prompt_tokens > plain.usage.prompt_tokens


def test_temperature_zero_is_greedy_even_if_the_checkpoint_samples(
    backend: HFBackend, model_dir: Path, tmp_path: Path
) -> None:
    copy = Path(shutil.copytree(model_dir, tmp_path / "sampling"))
    settings = json.loads((copy / "generation_config.json").read_text())
    settings.update(do_sample=True, temperature=0.6, top_p=0.9, top_k=20)
    (copy / "generation_config.json").write_text(json.dumps(settings))
    sampling = HFBackend(str(copy), batch_size=2)
    assert sampling.fingerprint() != backend.fingerprint()
    assert [r.text for r in run(sampling, requests())] == [r.text for r in run(backend, requests())]


def test_a_failed_batch_becomes_errors(backend: HFBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("simulated failure")

    monkeypatch.setattr(backend.load().model, "generate", broken)
    responses = run(backend, requests())
    assert len(responses) == 3
    assert all(not r.ok and r.error and "simulated failure" in r.error for r in responses)


def test_an_unreadable_image_fails_only_its_request(backend: HFBackend) -> None:
    bad = Request(messages=[Message.user("what?", [ImageRef(data=b"not an image")])], config=GREEDY)
    responses = run(backend, [bad, requests()[0]])
    assert responses[0].error is not None and "cannot prepare" in responses[0].error
    assert responses[1].ok


def test_missing_model_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not found"):
        HFBackend(str(tmp_path / "nowhere" / "model"))
    with pytest.raises(UserError, match="downloaded beforehand"):
        HFBackend("mmgauge-tests/surely-not-cached-model")
    with pytest.raises(UserError, match=r"no config\.json"):
        HFBackend(str(tmp_path))


def test_repo_id_is_found_in_the_local_cache(
    backend: HFBackend, model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    # The hub's cache layout: content-addressed blobs, and a snapshot of symlinks named by the commit.
    repo = tmp_path / "hub" / "models--mmgauge-tests--tiny-llava"
    commit = "0" * 40
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    (repo / "blobs").mkdir()
    (repo / "snapshots" / commit).mkdir(parents=True)
    for file in model_dir.iterdir():
        blob = repo / "blobs" / hashlib.sha256(file.read_bytes()).hexdigest()
        shutil.copyfile(file, blob)
        (repo / "snapshots" / commit / file.name).symlink_to(Path("..", "..", "blobs", blob.name))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))

    cached = HFBackend("mmgauge-tests/tiny-llava", batch_size=2)
    assert cached.directory == repo / "snapshots" / commit
    # Blob names are content hashes, so the fingerprint reads no weights and stays stable.
    assert cached.fingerprint() == HFBackend("mmgauge-tests/tiny-llava").fingerprint()
    assert [r.text for r in run(cached, requests())] == [r.text for r in run(backend, requests())]


def test_missing_torch_is_a_user_error(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(UserError) as raised:
        HFBackend(str(model_dir))
    assert str(raised.value) == EXTRA_HINT


def test_fingerprint_follows_content_not_location(model_dir: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    reference = HFBackend(str(model_dir)).fingerprint()
    copy = Path(shutil.copytree(model_dir, tmp_path / "copy"))
    assert HFBackend(str(copy)).fingerprint() == reference
    assert HFBackend(str(copy), dtype="bfloat16").fingerprint() != reference

    tensors = load_file(copy / "model.safetensors")
    name = sorted(tensors)[-1]
    tensors[name] = tensors[name].clone()
    tensors[name].view(-1)[-1] += 1.0
    save_file(tensors, copy / "model.safetensors", metadata={"format": "pt"})
    assert HFBackend(str(copy)).fingerprint() != reference


def test_from_spec_reads_options(model_dir: Path) -> None:
    spec = ModelSpec(backend="hf", path=str(model_dir), options={"device": "cpu", "dtype": "float32"})
    built = HFBackend.from_spec(spec, BackendSettings(batch_size=4))
    assert built.batch_size == 4 and built.device == "cpu" and built.dtype == "float32"
    assert built.describe()["fingerprint"] == built.fingerprint()
    with pytest.raises(UserError, match="unknown hf option"):
        HFBackend.from_spec(spec.model_copy(update={"options": {"colour": "red"}}), BackendSettings())
    quoted = spec.model_copy(update={"options": {"trust_remote_code": "no"}})
    with pytest.raises(UserError, match="true or false"):
        HFBackend.from_spec(quoted, BackendSettings())
    with pytest.raises(UserError, match="unknown dtype"):
        HFBackend(str(model_dir), dtype="int3")
