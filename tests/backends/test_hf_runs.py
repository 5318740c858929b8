"""The hf backend in whole runs (tiny random Llava, CPU): the model loads while the data is read, batches are
cut by prompt length without changing a greedy answer, and the manifest keeps the model's throughput."""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mmgauge.api.request import EvalRequest
from mmgauge.api.session import EvalSession
from mmgauge.backends import _hf_load
from mmgauge.backends.base import Request
from mmgauge.backends.hf import HFBackend
from mmgauge.core.errors import EndpointError
from mmgauge.core.types import GenerationConfig, ImageRef, Message, ModelResponse
from mmgauge.runner.progress import NullProgress
from mmgauge.store.run_folder import RunFolder
from mmgauge.testing.toy import tiny_png

pytest.importorskip("torch")
pytest.importorskip("transformers")

pytestmark = pytest.mark.slow

GREEDY = GenerationConfig(max_tokens=6)
SHORT = "Is it red? Please answer yes or no."
LONG = "Is there a large red circle in the middle of the picture, by the dog? Please answer yes or no."


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mmgauge.testing.tiny_vlm import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-llava"))


def generate(backend: HFBackend, batch: Sequence[Request]) -> list[ModelResponse]:
    return asyncio.run(backend.generate(batch))


def write_release(root: Path, pairs: int) -> Path:
    """An MME release folder whose every image has a short and a long question, short first."""
    folder = root / "existence"
    folder.mkdir(parents=True)
    for number in range(pairs):
        (folder / f"{number:04d}.png").write_bytes(tiny_png(number))
        (folder / f"{number:04d}.txt").write_text(f"{SHORT}\tYes\n{LONG}\tNo\n")
    return root


def evaluate(model: Any, data: Path, out: Path, batch_size: int, progress: Any = None) -> RunFolder:
    request = EvalRequest(model=model, benchmarks=["mme"], data={"mme": str(data)}, out=out, max_tokens=6,
                          batch_size=batch_size, cache=False)
    asyncio.run(EvalSession(request, progress).run())
    return RunFolder(out)


def answers(folder: RunFolder) -> dict[str, str | None]:
    return {f"{key[1]}/{key[2]}": record.response.text for key, record in folder.raw_records().items()}


def test_batches_cut_in_length_order_answer_as_one_at_a_time(model_dir: Path) -> None:
    texts = ["yes", SHORT, "Which option is correct? A. cat B. dog C. bird D. fish", LONG]
    # Image counts 0, 1 and 2 against four text lengths: every combination sits in a different place.
    requests = [Request(messages=[Message.user(texts[i % 4], [ImageRef(data=tiny_png(i + k))
                                                              for k in range(i % 3)])], config=GREEDY)
                for i in range(12)]
    backend = HFBackend(str(model_dir), batch_size=4)
    order = backend.batch_order(requests)
    assert sorted(order) == list(range(len(requests)))
    images = [len(requests[i].messages[0].images()) for i in order]
    assert images == sorted(images)  # never more image tokens to pad than the batch needs
    batched: dict[int, ModelResponse] = {}
    for start in range(0, len(order), 4):
        chunk = order[start:start + 4]
        batched.update(zip(chunk, generate(backend, [requests[i] for i in chunk]), strict=True))
    alone = [generate(backend, [request])[0] for request in requests]
    assert all(response.ok for response in alone)
    assert [batched[i].text for i in range(len(requests))] == [response.text for response in alone]


def test_a_run_batches_prompts_of_one_length_together(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    data = write_release(tmp_path / "mme", pairs=4)
    one_by_one = answers(evaluate(f"hf:{model_dir}", data, tmp_path / "alone", batch_size=1))

    cls: Any = transformers.LlavaForConditionalGeneration
    original = cls.generate
    masks: list[list[list[int]]] = []

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        masks.append(kwargs["attention_mask"].tolist())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, "generate", spy)
    batched = answers(evaluate(f"hf:{model_dir}", data, tmp_path / "batched", batch_size=2))
    # The data alternates short and long questions; in length order every batch is one length, unpadded.
    assert len(masks) == 4
    assert all(all(all(row) for row in mask) for mask in masks)
    assert batched == one_by_one


def test_the_model_loads_while_the_data_is_read_and_planned(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    from mmgauge.benchmarks.mme.bench import MMEBenchmark

    loading, planned = threading.Event(), threading.Event()
    seen: dict[str, bool] = {}
    processor: Any = transformers.AutoProcessor
    load_processor, load_data = processor.from_pretrained, MMEBenchmark.load

    def slow_load(*args: Any, **kwargs: Any) -> Any:
        loading.set()
        # Held until the requests are planned: a run that waited for its model would never get there.
        seen["planned while loading"] = planned.wait(timeout=30)
        return load_processor(*args, **kwargs)

    def read_data(self: MMEBenchmark, path: Path) -> Any:
        seen["loading while reading"] = loading.wait(timeout=5)
        return load_data(self, path)

    class Planned(NullProgress):
        def start(self, total: int | None, description: str) -> None:
            planned.set()

    monkeypatch.setattr(processor, "from_pretrained", slow_load)
    monkeypatch.setattr(MMEBenchmark, "load", read_data)
    folder = evaluate(f"hf:{model_dir}", write_release(tmp_path / "mme", 2), tmp_path / "run", 2, Planned())
    assert seen == {"loading while reading": True, "planned while loading": True}
    assert all(record.response.ok for record in folder.raw_records().values())


def test_the_manifest_records_the_model_throughput(model_dir: Path, tmp_path: Path) -> None:
    folder = evaluate(f"hf:{model_dir}", write_release(tmp_path / "mme", 3), tmp_path / "run", batch_size=4)
    manifest = folder.read_manifest()
    assert manifest is not None
    stats = manifest.invocations[-1].generation
    assert stats is not None
    records = folder.raw_records().values()
    assert stats.requests == len(records) == 6
    assert stats.completion_tokens == sum(record.response.usage.completion_tokens or 0 for record in records)
    assert stats.device == "cpu" and stats.device_name
    assert stats.generate_s > 0 and stats.tokens_per_s == pytest.approx(
        stats.completion_tokens / stats.generate_s, rel=1e-3)
    assert stats.peak_gpu_memory_bytes is None  # no CUDA device, no figure (never a made-up 0)


def test_a_model_that_fails_to_load_in_the_background_stops_at_the_first_batch(
    model_dir: Path, tmp_path: Path
) -> None:
    broken = Path(shutil.copytree(model_dir, tmp_path / "broken"))
    (broken / "model.safetensors").write_bytes(b"not weights")
    backend = HFBackend(str(broken))
    backend.warm_up()
    request = Request(messages=[Message.user(SHORT)], config=GREEDY)
    with pytest.raises(EndpointError, match="cannot load the model"):
        generate(backend, [request])
    assert backend.generation_stats() is None


def test_images_processor_and_model_all_run_on_one_thread_that_is_not_the_callers(
    model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transformers

    from mmgauge.backends import _hf_batch

    model_cls: Any = transformers.LlavaForConditionalGeneration
    processor_cls: Any = transformers.LlavaProcessor
    generate_batch, process, read = model_cls.generate, processor_cls.__call__, _hf_batch.conversation
    threads: dict[str, set[int]] = {"read": set(), "processor": set(), "generate": set()}

    def conversation(*args: Any, **kwargs: Any) -> Any:
        threads["read"].add(threading.get_ident())
        return read(*args, **kwargs)

    def processor_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        threads["processor"].add(threading.get_ident())
        return process(self, *args, **kwargs)

    def model_generate(self: Any, *args: Any, **kwargs: Any) -> Any:
        threads["generate"].add(threading.get_ident())
        return generate_batch(self, *args, **kwargs)

    monkeypatch.setattr(_hf_batch, "conversation", conversation)
    monkeypatch.setattr(processor_cls, "__call__", processor_call)
    monkeypatch.setattr(model_cls, "generate", model_generate)
    # Three batches of two, two in flight: a default thread pool would spread them over several threads.
    folder = evaluate(f"hf:{model_dir}", write_release(tmp_path / "mme", 3), tmp_path / "run", batch_size=2)
    assert len(folder.raw_records()) == 6
    assert all(len(seen) == 1 for seen in threads.values())
    assert len(set.union(*threads.values())) == 1
    assert threading.get_ident() not in threads["generate"]


def _needs_torchvision(model_dir: Path, out: Path) -> Path:
    """The tiny Llava laid out as a Qwen2-VL checkpoint's processor files are: transformers then builds
    Qwen2-VL's processor, whose video processor it makes only with torchvision."""
    copy = Path(shutil.copytree(model_dir, out))
    (copy / "processor_config.json").unlink()
    (copy / "preprocessor_config.json").write_text(
        '{"image_processor_type": "Qwen2VLImageProcessor", "processor_class": "Qwen2VLProcessor", '
        '"patch_size": 14, "merge_size": 2, "temporal_patch_size": 2}')
    return copy


@pytest.mark.skipif(importlib.util.find_spec("torchvision") is not None,
                    reason="torchvision is installed: transformers builds the processor")
def test_a_processor_that_needs_torchvision_stops_the_run_with_one_line_naming_it(
    model_dir: Path, tmp_path: Path, cli: Any
) -> None:
    checkpoint = _needs_torchvision(model_dir, tmp_path / "qwen-layout")
    result = cli("run", "--model", f"hf:{checkpoint}", "--bench", "mme", "--limit", "2", "--out",
                 tmp_path / "run", "--no-cache")
    assert result.code == 2
    [line] = [line for line in result.err.splitlines() if "processor" in line]
    assert ("cannot load the processor: Qwen2VLVideoProcessor requires the Torchvision library but it "
            "was not found in your environment (install the torchvision build made for the installed "
            "torch)") in line
    assert RunFolder(tmp_path / "run").raw_records() == {}


def test_a_torchvision_that_does_not_load_is_named_behind_transformers_generic_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What transformers raises when the installed torchvision was built for another torch (PyPI's CUDA wheel
    # beside a CPU-only torch): a generic message, the cause only in the chain.
    try:
        try:
            raise RuntimeError("operator torchvision::nms does not exist")
        except RuntimeError as cause:
            raise ModuleNotFoundError("Could not import module 'AutoProcessor'. Are this object's "
                                      "requirements defined correctly?") from cause
    except ModuleNotFoundError as error:
        failure = error
    monkeypatch.setattr(_hf_load.importlib.util, "find_spec", lambda name, *rest: object())
    assert _hf_load._processor_failure(failure) == (
        "torchvision is installed but does not load (RuntimeError: operator torchvision::nms does not "
        "exist): install the torchvision build made for the installed torch")
    other = ValueError("no tokenizer\nin this folder")
    assert _hf_load._processor_failure(other) == "ValueError: no tokenizer"
