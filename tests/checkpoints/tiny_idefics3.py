"""A random-weight Idefics3 (SmolVLM's architecture) built offline and saved with save_pretrained.

As `mmgauge.testing.tiny_vlm` builds its Llava: a byte-level BPE trained on a small corpus, wrapped in
PreTrainedTokenizerFast with SmolVLM's special tokens, the PIL Idefics3 image processor at tiny sizes, an
Idefics3Processor with SmolVLM-256M-Instruct's chat template, and a tiny vision tower and Llama.

The processor and the model must agree on the image tokens: (32 // 8) ** 2 = 16 patches per (sub-)image,
4 after the connector's pixel shuffle (scale factor 2), so image_seq_len is 4.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmgauge.testing.tiny_vlm import CORPUS, save_checkpoint

#: The tiny Llava's corpus, and the roles SmolVLM's template writes.
_CORPUS = [*CORPUS, "User: Assistant:"]

# SmolVLM's tokens: bos <|im_start|>, eos <end_of_utterance>, pad <|im_end|>, unk <|endoftext|>.
_UNK, _BOS, _PAD, _EOS = "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<end_of_utterance>"
_FAKE, _IMAGE, _GLOBAL = "<fake_token_around_image>", "<image>", "<global-img>"
# Idefics3 writes split images as <row_R_col_C> tags (up to 6 x 6), which SmolVLM has as added tokens.
_ROW_COL = [f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7)]

# HuggingFaceTB/SmolVLM-256M-Instruct's chat_template.
CHAT_TEMPLATE = (
    "<|im_start|>{% for message in messages %}{{message['role'] | capitalize}}"
    "{% if message['content'][0]['type'] == 'image' %}{{':'}}{% else %}{{': '}}{% endif %}"
    "{% for line in message['content'] %}{% if line['type'] == 'text' %}{{line['text']}}"
    "{% elif line['type'] == 'image' %}{{ '<image>' }}{% endif %}{% endfor %}<end_of_utterance>\n"
    "{% endfor %}{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
)

IMAGE_SIZE = 32  # the vision tower's input side (SmolVLM: 512)
PATCH_SIZE = 8  # (SmolVLM: 16)
SCALE_FACTOR = 2  # pixel-shuffle factor of the connector (SmolVLM: 4)
IMAGE_SEQ_LEN = (IMAGE_SIZE // PATCH_SIZE) ** 2 // SCALE_FACTOR**2  # 4 (SmolVLM: 64)


def build_tiny_idefics3(directory: str | Path, *, do_image_splitting: bool = False, seed: int = 0,
                        initializer_range: float = 0.2) -> Path:
    """Write a complete tiny random Idefics3 checkpoint to `directory` and return the directory.

    `initializer_range` is 10x transformers' default: at 0.02 a model this small answers nearly the same
    tokens whatever the prompt or image, which would hide wrong inputs; at 0.2 answers follow both.
    """
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    hf: Any = transformers
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)

    specials = [_UNK, _BOS, _PAD, _EOS, _FAKE, _IMAGE, _GLOBAL, *_ROW_COL]
    raw = Tokenizer(models.BPE(unk_token=_UNK))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    raw.train_from_iterator(_CORPUS, trainer=trainer)
    tokenizer = hf.PreTrainedTokenizerFast(
        tokenizer_object=raw, bos_token=_BOS, eos_token=_EOS, pad_token=_PAD, unk_token=_UNK,
        additional_special_tokens=[_FAKE, _IMAGE, _EOS, _GLOBAL, *_ROW_COL],
    )

    image_processor = hf.Idefics3ImageProcessorPil(
        do_resize=True,
        # Images are first resized to this longest edge, then (splitting) cut into max_image_size tiles
        # plus a global view, or (no splitting) resized to one max_image_size square.
        size={"longest_edge": 2 * IMAGE_SIZE},
        max_image_size={"longest_edge": IMAGE_SIZE},
        do_image_splitting=do_image_splitting,
        image_mean=[0.5, 0.5, 0.5],
        image_std=[0.5, 0.5, 0.5],
    )
    processor = hf.Idefics3Processor(image_processor=image_processor, tokenizer=tokenizer,
                                     image_seq_len=IMAGE_SEQ_LEN, chat_template=CHAT_TEMPLATE)

    ids = {name: int(tokenizer.convert_tokens_to_ids(name)) for name in (_BOS, _EOS, _PAD, _IMAGE)}
    vision = hf.Idefics3VisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=2, image_size=IMAGE_SIZE, patch_size=PATCH_SIZE,
                                     initializer_range=initializer_range)
    text = hf.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                          num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                          max_position_embeddings=1024, rms_norm_eps=1e-5, bos_token_id=ids[_BOS],
                          eos_token_id=ids[_EOS], pad_token_id=ids[_PAD], tie_word_embeddings=False,
                          initializer_range=initializer_range)
    config = hf.Idefics3Config(vision_config=vision, text_config=text, image_token_id=ids[_IMAGE],
                               scale_factor=SCALE_FACTOR, pad_token_id=ids[_PAD], tie_word_embeddings=False,
                               initializer_range=initializer_range)

    torch.manual_seed(seed)
    model = hf.Idefics3ForConditionalGeneration(config).eval()
    return save_checkpoint(model, processor, out, bos=ids[_BOS], eos=ids[_EOS], pad=ids[_PAD])
