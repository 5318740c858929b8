"""Build a random-weight vision-language model (Llava: CLIP vision tower + Llama text model) offline.

Tests and benchmarks need a checkpoint that goes through the same `from_pretrained` path as a real one,
without any download: every part (tokenizer, image processor, chat template, configs, weights) is built here
from scratch and written with `save_pretrained`. The weights are random, so the model's answers are
gibberish; only the plumbing (templates, image tokens, padding, decoding) is real. `TINY` (tests, well under
1 MB) and `LLAVA_1B` (the shape of a Llava-1.5 with a 1.1B Llama, for GPU benchmarks) share the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Enough text for the byte-level BPE to learn some merges; the exact words do not matter.
CORPUS = [
    "Is there a red circle in the image? Answer yes or no.",
    "Which option is correct? A. cat B. dog C. bird D. fish",
    "The quick brown fox jumps over the lazy dog.",
    "Describe the picture in one short sentence.",
    "How many apples are on the table? Please answer with a number.",
    "yes no A B C D 0 1 2 3 4 5 6 7 8 9",
]

_SPECIAL = {"bos": "<s>", "eos": "</s>", "pad": "<pad>", "unk": "<unk>", "image": "<image>"}

# Same shape as the Llava-1.5 template: images first inside a user turn, an assistant prompt at the end.
_CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ message['role'].upper() }}: "
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}"
    "{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>\n{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}"
    "{% endif %}"
    "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}{{ '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)

IMAGE_SIZE = 32
PATCH_SIZE = 8


@dataclass(frozen=True)
class VLMShape:
    vision_hidden: int
    vision_intermediate: int
    vision_layers: int
    vision_heads: int
    image_size: int
    patch_size: int
    text_hidden: int
    text_intermediate: int
    text_layers: int
    text_heads: int
    text_kv_heads: int
    #: None: the tokenizer's own (about 400 tokens). A larger one is filled with short lowercase words that
    #: no merge rule makes: prompts tokenise as before, and every id the model picks decodes to text.
    vocab_size: int | None = None
    max_positions: int = 512


TINY = VLMShape(32, 64, 2, 2, IMAGE_SIZE, PATCH_SIZE, 32, 64, 2, 2, 2)
#: CLIP ViT-L/14 at 336 px (576 image tokens) and a 1.1B Llama (TinyLlama's shape), as in Llava-1.5.
LLAVA_1B = VLMShape(1024, 4096, 24, 16, 336, 14, 2048, 5632, 22, 32, 4, vocab_size=32000, max_positions=4096)


def build_tiny_vlm(directory: str | Path, *, seed: int = 0) -> Path:
    """Write a complete tiny Llava checkpoint (well under 1 MB) to `directory` and return the directory."""
    return build_random_vlm(directory, TINY, seed=seed)


def build_random_vlm(directory: str | Path, shape: VLMShape, *, seed: int = 0, dtype: str = "float32",
                     device: str = "cpu") -> Path:
    """Write a random Llava of `shape` (weights initialised on `device`, saved in `dtype`) to `directory`."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    # transformers is only partly annotated; strict mypy would reject calls into its untyped constructors.
    hf: Any = transformers

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)

    # Byte-level BPE so that any prompt text is encodable without an unknown token.
    raw = Tokenizer(models.BPE(unk_token=_SPECIAL["unk"]))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=list(_SPECIAL.values()),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    raw.train_from_iterator(CORPUS, trainer=trainer)
    if shape.vocab_size is not None:
        raw = _widened(raw, shape.vocab_size)
    tokenizer = hf.PreTrainedTokenizerFast(
        tokenizer_object=raw,
        bos_token=_SPECIAL["bos"],
        eos_token=_SPECIAL["eos"],
        pad_token=_SPECIAL["pad"],
        unk_token=_SPECIAL["unk"],
        extra_special_tokens={"image_token": _SPECIAL["image"]},
    )

    image_processor = hf.CLIPImageProcessor(
        size={"shortest_edge": shape.image_size},
        crop_size={"height": shape.image_size, "width": shape.image_size},
    )
    processor = hf.LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=shape.patch_size,
        # CLIP prepends a CLS embedding that the "default" strategy drops again; the processor must count it.
        num_additional_image_tokens=1,
        vision_feature_select_strategy="default",
        chat_template=_CHAT_TEMPLATE,
        image_token=_SPECIAL["image"],
    )

    vision = hf.CLIPVisionConfig(
        hidden_size=shape.vision_hidden,
        intermediate_size=shape.vision_intermediate,
        num_hidden_layers=shape.vision_layers,
        num_attention_heads=shape.vision_heads,
        image_size=shape.image_size,
        patch_size=shape.patch_size,
        projection_dim=shape.vision_hidden,
    )
    text = hf.LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=shape.text_hidden,
        intermediate_size=shape.text_intermediate,
        num_hidden_layers=shape.text_layers,
        num_attention_heads=shape.text_heads,
        num_key_value_heads=shape.text_kv_heads,
        max_position_embeddings=shape.max_positions,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    config = hf.LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_index=int(tokenizer.convert_tokens_to_ids(_SPECIAL["image"])),
        image_seq_length=(shape.image_size // shape.patch_size) ** 2,
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )

    torch.manual_seed(seed)
    # Initialised where it will run: a billion random weights take minutes on a CPU, a moment on a GPU.
    with torch.device(device):
        model = hf.LlavaForConditionalGeneration(config)
    model.to(getattr(torch, dtype)).eval()
    return save_checkpoint(model, processor, out, bos=tokenizer.bos_token_id, eos=tokenizer.eos_token_id,
                           pad=tokenizer.pad_token_id)


def save_checkpoint(model: Any, processor: Any, out: Path, *, bos: int, eos: int, pad: int) -> Path:
    """Save `model` and `processor` to `out` as a checkpoint folder whose generation config names the
    special tokens (a random model's would be empty); return `out`."""
    model.generation_config.bos_token_id = bos
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = pad
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out


def _widened(raw: Any, size: int) -> Any:
    """`raw` (a trained byte-level BPE) with its vocabulary filled up to `size` entries, merges unchanged."""
    import itertools
    import json
    import string

    from tokenizers import Tokenizer

    data = json.loads(raw.to_str())
    vocab: dict[str, int] = data["model"]["vocab"]
    # Byte-level BPE writes a leading space as "Ġ"; lowercase letters stand for themselves.
    letters = string.ascii_lowercase
    words = ("".join(chars) for n in (2, 3) for chars in itertools.product(letters, repeat=n))
    for word in (prefix + word for word in words for prefix in ("Ġ", "")):
        if len(vocab) >= size:
            break
        vocab.setdefault(word, len(vocab))
    return Tokenizer.from_str(json.dumps(data))
