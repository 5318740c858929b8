"""The hf backend on architectures besides Llava, each a tiny random checkpoint built offline: Idefics3
(SmolVLM's, images split into tiles, its template writing the BOS), LLaVA-NeXT ("anyres" tiles whose count
follows each image's aspect ratio; Mistral's tokenizer adding the BOS its template leaves out) and Mllama
(Llama 3.2 Vision: images through cross-attention, padded to the batch's most images per row). Every answer,
from a whole run and from batches mixing request shapes, is the one plain transformers gives (processor,
chat template, greedy `generate`, one request at a time)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from mmgauge.backends.base import Request
from mmgauge.backends.hf import HFBackend
from mmgauge.core.types import GenerationConfig, ImagePart, ImageRef, Message, TextPart

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

pytestmark = pytest.mark.slow

GREEDY = GenerationConfig(max_tokens=8)


@pytest.fixture(scope="module", params=["idefics3", "llava-next", "mllama"])
def model_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from checkpoints.tiny_idefics3 import build_tiny_idefics3
    from checkpoints.tiny_llava_next import build_tiny_llava_next
    from checkpoints.tiny_mllama import build_tiny_mllama

    folder = tmp_path_factory.mktemp(f"tiny-{request.param}")
    if request.param == "idefics3":
        return build_tiny_idefics3(folder, do_image_splitting=True)
    if request.param == "llava-next":
        return build_tiny_llava_next(folder)
    return build_tiny_mllama(folder)


@pytest.fixture(scope="module")
def bare(model_dir: Path) -> Any:
    """A request answered the way a model card's loop answers it."""
    from PIL import Image

    processor = transformers.AutoProcessor.from_pretrained(model_dir, local_files_only=True)
    model = transformers.AutoModelForImageTextToText.from_pretrained(model_dir, local_files_only=True).eval()
    tokenizer = processor.tokenizer

    def answer(request: Request) -> str:
        messages: list[dict[str, Any]] = []
        images = []
        if request.config.system_prompt:
            system = request.config.system_prompt
            messages.append({"role": "system", "content": [{"type": "text", "text": system}]})
        for message in request.messages:
            parts: list[dict[str, Any]] = []
            for part in message.content:
                if isinstance(part, ImagePart):
                    images.append(Image.open(io.BytesIO(part.image.load())).convert("RGB"))
                    parts.append({"type": "image"})
                else:
                    parts.append({"type": "text", "text": part.text})
            messages.append({"role": message.role, "content": parts})
        prompt = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        # As the model cards do: a prompt whose template wrote the BOS gets no second one from the tokenizer.
        written = bool(tokenizer.bos_token) and prompt.startswith(tokenizer.bos_token)
        inputs = processor(text=[prompt], images=[images] if images else None, return_tensors="pt",
                           add_special_tokens=not written)
        with torch.inference_mode():
            output = model.generate(**inputs, max_new_tokens=request.config.max_tokens, do_sample=False)
        new = output[0, inputs["input_ids"].shape[1]:].tolist()
        if tokenizer.eos_token_id in new:
            new = new[:new.index(tokenizer.eos_token_id)]
        return str(tokenizer.decode(new, skip_special_tokens=True)).strip()

    return answer


def _png(size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    from PIL import Image

    image = Image.new("RGB", size, colour)
    for x in range(0, size[0], 5):  # a diagonal, so that images of one colour still differ by shape
        image.putpixel((x, x % size[1]), (255 - colour[0], 0, colour[2]))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def test_batches_mixing_images_of_any_shape_and_text_answer_as_plain_transformers(
    model_dir: Path, bare: Any
) -> None:
    system = GREEDY.model_copy(update={"system_prompt": "Answer briefly."})
    red = ImageRef(data=_png((40, 30), (200, 10, 10)))
    green, blue = ImageRef(data=_png((64, 20), (10, 200, 10))), ImageRef(data=_png((20, 70), (10, 10, 200)))
    between = [TextPart(text="Look:"), ImagePart(image=ImageRef(data=_png((30, 30), (0, 50, 100)))),
               TextPart(text=" what is it?")]
    messages = [
        (Message.user("Is there a red circle?", [red]), GREEDY),
        (Message.user("Describe the picture in one short sentence."), GREEDY),
        (Message.user("Which option is correct? A. cat B. dog", [green, blue]), GREEDY),
        (Message.user("How many apples?", [ImageRef(data=_png((16, 100), (90, 90, 10)))]), GREEDY),
        (Message.user("Answer yes or no.", [ImageRef(data=_png((8, 8), (1, 2, 3)))]), GREEDY),
        (Message.user("Is there a red circle?", [red]), system),
        (Message(role="user", content=between), GREEDY),
    ]
    requests = [Request(messages=[message], config=config) for message, config in messages]
    expected = [bare(request) for request in requests]
    assert len(set(expected)) > 3  # the random weights answer differently to different inputs
    for batch_size in (1, 3, 7):
        backend = HFBackend(str(model_dir), batch_size=batch_size)
        backend.load()
        try:
            answers = asyncio.run(backend.generate(requests))
        finally:
            asyncio.run(backend.aclose())
        assert [answer.error for answer in answers] == [None] * len(requests)
        assert [answer.text for answer in answers] == expected, batch_size


def test_a_whole_run_answers_as_plain_transformers(
    model_dir: Path, bare: Any, tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Request] = []
    generate = HFBackend.generate

    async def recording(self: HFBackend, batch: list[Request]) -> Any:
        asked.extend(batch)
        return await generate(self, batch)

    monkeypatch.setattr(HFBackend, "generate", recording)
    result = cli("run", "--model", f"hf:{model_dir}", "--bench", "mme,mmbench", "--limit", "4",
                 "--batch-size", "3", "--max-tokens", "8", "--out", tmp_path / "run", "--no-cache")
    assert result.code == 0, result.err
    records = [json.loads(line) for line in (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert len(records) == len(asked) >= 8
    # By sample, not by prompt: MME asks one question ("Is there a car in this image?") of several images.
    by_sample = {request.sample_id: request for request in asked}
    assert len(by_sample) == len(asked)
    for record in records:
        assert record["response"]["error"] is None
        assert record["response"]["text"] == bare(by_sample[record["sample_id"]]), record["sample_id"]
