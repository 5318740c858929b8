"""A random-weight Llama 3.2 Vision (Mllama) built offline and saved with save_pretrained.

As `mmgauge.testing.tiny_vlm` builds its Llava, with what sets Mllama apart: images reach the text model
through cross-attention layers, not as tokens in the prompt, each image cut into up to 4 tiles; a row's
images are padded to the batch's most. Its tokenizer adds the BOS token, which its chat template writes too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mmgauge.testing.tiny_vlm import CORPUS


def _tokenizer(specials: list[str], unk: str, bos: str) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    raw = Tokenizer(models.BPE(unk_token=unk))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    raw.train_from_iterator([*CORPUS, "user model assistant system Answer briefly."], trainer=trainer)
    bos_id = raw.token_to_id(bos)
    # Like Llama 3's tokenizer (TemplateProcessing): encoding adds a BOS.
    raw.post_processor = processors.TemplateProcessing(
        single=f"{bos}:0 $A:0", pair=f"{bos}:0 $A:0 {bos}:1 $B:1", special_tokens=[(bos, bos_id)])
    return raw


# Shaped like meta-llama/Llama-3.2-11B-Vision-Instruct's chat_template (no tools): a system header when the
# user gave a system message or there are no images, Llama 3 header tokens, <|image|> where the image goes.
MLLAMA_CHAT_TEMPLATE = (
    "{{- bos_token }}\n"
    "{%- if messages[0]['role'] == 'system' %}\n"
    "    {%- if messages[0]['content'] is string %}\n"
    "        {%- set system_message = messages[0]['content']|trim %}\n"
    "    {%- else %}\n"
    "        {%- set system_message = messages[0]['content'][0]['text']|trim %}\n"
    "    {%- endif %}\n"
    "    {%- set messages = messages[1:] %}\n"
    "{%- else %}\n"
    "    {%- set system_message = \"\" %}\n"
    "{%- endif %}\n"
    "{%- set image_ns = namespace(has_images=false) %}\n"
    "{%- for message in messages %}\n"
    "    {%- if message['content'] is not string %}\n"
    "    {%- for content in message['content'] %}\n"
    "        {%- if content['type'] == 'image' %}\n"
    "            {%- set image_ns.has_images = true %}\n"
    "        {%- endif %}\n"
    "    {%- endfor %}\n"
    "    {%- endif %}\n"
    "{%- endfor %}\n"
    "{%- if system_message or not image_ns.has_images %}\n"
    "    {{- \"<|start_header_id|>system<|end_header_id|>\\n\\n\" }}\n"
    "    {{- \"Cutting Knowledge Date: December 2023\\n\" }}\n"
    "    {{- \"Today Date: 26 Jul 2024\\n\\n\" }}\n"
    "    {{- system_message }}\n"
    "    {{- \"<|eot_id|>\" }}\n"
    "{%- endif %}\n"
    "{%- for message in messages %}\n"
    "    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}\n"
    "    {%- if message['content'] is string %}\n"
    "        {{- message['content'] }}\n"
    "    {%- else %}\n"
    "        {%- for content in message['content'] %}\n"
    "            {%- if content['type'] == 'image' %}\n"
    "                {{- '<|image|>' }}\n"
    "            {%- elif content['type'] == 'text' %}\n"
    "                {{- content['text'] }}\n"
    "            {%- endif %}\n"
    "        {%- endfor %}\n"
    "    {%- endif %}\n"
    "    {{- '<|eot_id|>' }}\n"
    "{%- endfor %}\n"
    "{%- if add_generation_prompt %}\n"
    "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
    "{%- endif %}\n"
)

MLLAMA_TILE = 16  # tile side (Llama 3.2 Vision: 560)
MLLAMA_PATCH = 8  # (14)


def build_tiny_mllama(directory: str | Path, *, seed: int = 0, initializer_range: float = 0.2) -> Path:
    """Write a complete tiny random MllamaForConditionalGeneration checkpoint to `directory`."""
    import torch
    import transformers

    hf: Any = transformers
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)

    bos, eot_text, eot, eom = "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>"
    sh, eh = "<|start_header_id|>", "<|end_header_id|>"
    pad, py = "<|finetune_right_pad_id|>", "<|python_tag|>"
    image = "<|image|>"
    # <|image|> last: as in Llama 3.2 Vision (id 128256 == text vocab_size) only the embedding table (vocab
    # + 8 rows) holds it, the LM head cannot produce it.
    raw = _tokenizer([bos, eot_text, sh, eh, eom, eot, pad, py], eot_text, bos)
    raw.add_special_tokens([image])
    tokenizer = hf.PreTrainedTokenizerFast(
        tokenizer_object=raw, bos_token=bos, eos_token=eot, pad_token=pad,
        additional_special_tokens=[eot_text, sh, eh, eom, py, image],
    )
    ids = {t: int(tokenizer.convert_tokens_to_ids(t)) for t in (bos, eot_text, eot, eom, pad, image)}
    assert ids[image] == len(tokenizer) - 1, ids

    image_processor = hf.MllamaImageProcessorPil(
        size={"height": MLLAMA_TILE, "width": MLLAMA_TILE}, max_image_tiles=4,
        image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5],
    )
    processor = hf.MllamaProcessor(image_processor=image_processor, tokenizer=tokenizer,
                                   chat_template=MLLAMA_CHAT_TEMPLATE)

    vision = hf.MllamaVisionConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_global_layers=1, attention_heads=2,
        image_size=MLLAMA_TILE, patch_size=MLLAMA_PATCH, max_num_tiles=4, intermediate_layers_indices=[0, 1],
        vision_output_dim=32 * 3, initializer_range=initializer_range,
    )
    text = hf.MllamaTextConfig(
        vocab_size=ids[image], hidden_size=32, intermediate_size=64, num_hidden_layers=3,
        num_attention_heads=2, num_key_value_heads=1, cross_attention_layers=[1],
        max_position_embeddings=1024,
        bos_token_id=ids[bos], eos_token_id=[ids[eot_text], ids[eom], ids[eot]], pad_token_id=ids[pad],
        initializer_range=initializer_range,
    )
    config = hf.MllamaConfig(vision_config=vision, text_config=text, image_token_index=ids[image])
    torch.manual_seed(seed)
    model = hf.MllamaForConditionalGeneration(config).eval()
    # Cross-attention gates start at zero: the images would not change a thing. Open them.
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith(("cross_attn_attn_gate", "cross_attn_mlp_gate", "gate_attn", "gate_ffn")):
                param.fill_(1.0)
    gen = model.generation_config
    # Llama-3.2-11B-Vision-Instruct's generation_config.json (temperature 0.6, top_p 0.9 sampling).
    gen.bos_token_id, gen.pad_token_id = ids[bos], ids[pad]
    gen.eos_token_id = [ids[eot_text], ids[eom], ids[eot]]
    gen.do_sample, gen.temperature, gen.top_p = True, 0.6, 0.9
    model.save_pretrained(out)
    processor.save_pretrained(out)
    return out
