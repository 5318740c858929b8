"""Log-likelihoods of replies under the embedded text model.

The replies to one prompt share its forward pass: the prompt is run once, one-token replies ("Yes", "B") are
read off its last position, and longer ones (option texts) continue from its cached keys and values together.
torch is imported only inside the function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def reply_loglikelihoods(
    model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]]
) -> list[tuple[float, int]]:
    """(summed log-probability, token count) of each reply given its prompt (the prompt ends where the
    assistant's reply begins). A reply is tokenized on its own, as it would be generated after the prompt."""
    by_prompt: dict[str, list[int]] = {}
    for position, (prompt, _) in enumerate(pairs):
        by_prompt.setdefault(prompt, []).append(position)
    results: list[tuple[float, int]] = [(0.0, 0)] * len(pairs)
    for prompt, positions in by_prompt.items():
        replies = [_ids(tokenizer, pairs[position][1]) for position in positions]
        for position, scored in zip(positions, _score(model, _ids(tokenizer, prompt), replies), strict=True):
            results[position] = scored
    return results


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _score(model: Any, prompt: list[int], replies: list[list[int]]) -> list[tuple[float, int]]:
    import torch

    with torch.inference_mode():
        out = model(input_ids=torch.tensor([prompt], dtype=torch.long), use_cache=True)
        first = torch.log_softmax(out.logits[0, -1].float(), dim=-1)
        totals = [float(first[reply[0]]) if reply else 0.0 for reply in replies]
        longer = [index for index, reply in enumerate(replies) if len(reply) > 1]
        if longer:
            # transformers 5 names the cache `cache`; 4.x (still allowed) `past_key_values`.
            name = "cache" if getattr(out, "cache", None) is not None else "past_key_values"
            cache = getattr(out, name)
            cache.batch_repeat_interleave(len(longer))
            width = max(len(replies[index]) for index in longer)
            # Padded on the right: padding comes after every real token, so no real token attends to it.
            ids = torch.zeros((len(longer), width), dtype=torch.long)
            for row, index in enumerate(longer):
                ids[row, : len(replies[index])] = torch.tensor(replies[index], dtype=torch.long)
            positions = torch.arange(len(prompt), len(prompt) + width).unsqueeze(0).expand(len(longer), -1)
            logits = model(input_ids=ids, position_ids=positions, use_cache=True, **{name: cache}).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            for row, index in enumerate(longer):
                reply = replies[index]
                # Reply token t (t >= 1) is predicted at continuation position t - 1.
                steps = torch.arange(0, len(reply) - 1)
                totals[index] += float(logprobs[row, steps, torch.tensor(reply[1:])].sum())
    return [(total, len(reply)) for total, reply in zip(totals, replies, strict=True)]
