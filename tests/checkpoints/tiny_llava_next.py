"""A random-weight LLaVA-NeXT (llava-v1.6-mistral's shape) built offline and saved with save_pretrained.

As `mmgauge.testing.tiny_vlm` builds its Llava, with what sets LLaVA-NeXT apart: "anyres" tiling (a small
`image_grid_pinpoints`, so that the sample images are cut into 3 to 5 tiles and each image's token count
follows its aspect ratio, passed to the model as `image_sizes`), and Mistral's way with the BOS token: its
chat template writes none, its tokenizer adds it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmgauge.testing.tiny_vlm import CORPUS, save_checkpoint

IMAGE_SIZE = 32
PATCH_SIZE = 8
#: (height, width) grids in multiples of IMAGE_SIZE: 1x2, 2x1, 2x2, 1x3 and 3x1 tiles.
PINPOINTS = [[32, 64], [64, 32], [64, 64], [32, 96], [96, 32]]

#: llava-hf/llava-v1.6-mistral-7b-hf's chat template.
CHAT_TEMPLATE = (
    "{% for message in messages %}{% if message['role'] == 'system' %}{{ '<<SYS>>\\n' + "
    "message['content'][0]['text'] + '\\n<</SYS>>\\n\\n' }}{% elif message['role'] == 'user' %}"
    "{{ '[INST] ' }}{% for content in message['content'] | selectattr('type', 'equalto', 'image') %}"
    "{{ '<image>\\n' }}{% endfor %}"
    "{% for content in message['content'] | selectattr('type', 'equalto', 'text') %}{{ content['text'] }}"
    "{% endfor %}{{' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ ' ' + message['content'][0]['text'] + '</s> '}}{% else %}"
    "{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
)


def build_tiny_llava_next(directory: str | Path, *, seed: int = 0, initializer_range: float = 0.2) -> Path:
    """Write a complete tiny LlavaNextForConditionalGeneration checkpoint to `directory`; return it.

    `initializer_range` is 10x transformers' default, so that the answers follow the prompt and the image.
    """
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    hf: Any = transformers
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)

    bos, eos, pad, unk, image = "<s>", "</s>", "<pad>", "<unk>", "<image>"
    raw = Tokenizer(models.BPE(unk_token=unk))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=[bos, eos, pad, unk, image],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    raw.train_from_iterator([*CORPUS, "[INST] [/INST] user assistant system"], trainer=trainer)
    # The tokenizer adds the BOS (as Mistral's does), which the chat template does not write.
    raw.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, raw.token_to_id(bos))])
    tokenizer = hf.PreTrainedTokenizerFast(tokenizer_object=raw, bos_token=bos, eos_token=eos, pad_token=pad,
                                           unk_token=unk, extra_special_tokens={"image_token": image})
    image_processor = hf.LlavaNextImageProcessorPil(
        size={"shortest_edge": IMAGE_SIZE}, crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE},
        image_grid_pinpoints=PINPOINTS, image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5],
    )
    processor = hf.LlavaNextProcessor(
        image_processor=image_processor, tokenizer=tokenizer, patch_size=PATCH_SIZE,
        vision_feature_select_strategy="default", num_additional_image_tokens=1,
        chat_template=CHAT_TEMPLATE, image_token=image,
    )
    ids = {name: int(tokenizer.convert_tokens_to_ids(name)) for name in (bos, eos, pad, image)}
    vision = hf.CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                 num_attention_heads=2, image_size=IMAGE_SIZE, patch_size=PATCH_SIZE,
                                 projection_dim=32, initializer_range=initializer_range)
    text = hf.LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                          num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                          max_position_embeddings=2048, bos_token_id=ids[bos], eos_token_id=ids[eos],
                          pad_token_id=ids[pad], tie_word_embeddings=False,
                          initializer_range=initializer_range)
    config = hf.LlavaNextConfig(
        vision_config=vision, text_config=text, image_token_index=ids[image], image_grid_pinpoints=PINPOINTS,
        vision_feature_select_strategy="default", vision_feature_layer=-1,
        image_seq_length=(IMAGE_SIZE // PATCH_SIZE) ** 2, tie_word_embeddings=False,
        initializer_range=initializer_range,
    )
    torch.manual_seed(seed)
    model = hf.LlavaNextForConditionalGeneration(config).eval()
    with torch.no_grad():  # the row that ends each line of tiles starts at zero: give it a signal too
        model.model.image_newline.normal_(0, initializer_range)
    return save_checkpoint(model, processor, out, bos=ids[bos], eos=ids[eos], pad=ids[pad])
