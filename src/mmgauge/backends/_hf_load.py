"""Loading a local transformers checkpoint for the `hf` backend, in a background thread.

`Loading` starts a thread as soon as it is made: the processor first (the runner needs its tokenizer to
order requests by length), then the model, straight onto its device. A load error is kept and raised where
the model is next asked for, so a run stops at its first batch exactly as if it had loaded the model there.
"""

from __future__ import annotations

import importlib.util
import platform
import re
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mmgauge.backends._quiet import no_transformers_progress_bars
from mmgauge.backends.checkpoints import EXTRA_HINT, one_line
from mmgauge.core.errors import EndpointError, UserError


@dataclass
class Loaded:
    model: Any
    processor: Any
    tokenizer: Any
    multimodal: bool
    chat_template: str
    device: str
    #: What the device is, for the manifest: the GPU's name, or the CPU's architecture.
    device_name: str
    eos_ids: frozenset[int]
    pad_id: int | None
    #: Held while the processor encodes or the tokenizer decodes. A fast tokenizer sets its padding before
    #: each encoding (a write to the Rust object): alongside another thread's decoding it fails with
    #: "Already borrowed". Decoding is short, so one batch's decoding and the next one's encoding take turns.
    text_lock: threading.Lock = field(default_factory=threading.Lock)
    #: Each row of a batch must hold as many images as the others (a cross-attention model: Mllama).
    equal_image_counts: bool = False


class Loading:
    """A checkpoint loading in a daemon thread (an abandoned load must not hold up the process's exit)."""

    def __init__(self, directory: Path, device: str, dtype: str, trust_remote_code: bool) -> None:
        self.processor: Future[Any] = Future()
        self.loaded: Future[Loaded] = Future()
        self._args = (directory, device, dtype, trust_remote_code)
        #: Set by the load thread the moment it begins (tests observe the overlap with it, not with clocks).
        self.began = threading.Event()
        threading.Thread(target=self._run, name="mmgauge-hf-load", daemon=True).start()

    def _run(self) -> None:
        self.began.set()
        directory, device, dtype, trust = self._args
        try:
            processor = load_processor(directory, trust)
        except BaseException as error:
            self.processor.set_exception(error)
            self.loaded.set_exception(error)
            return
        self.processor.set_result(processor)
        try:
            self.loaded.set_result(load_model(processor, directory, device, dtype, trust))
        except BaseException as error:
            self.loaded.set_exception(error)


def _imports() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise UserError(EXTRA_HINT) from None
    return torch, transformers


def load_processor(directory: Path, trust_remote_code: bool) -> Any:
    _, transformers = _imports()
    hf: Any = transformers  # only partly annotated; strict mypy would reject calls into it
    try:
        with no_transformers_progress_bars():
            processor = hf.AutoProcessor.from_pretrained(directory, local_files_only=True,
                                                         trust_remote_code=trust_remote_code)
    except Exception as error:
        raise EndpointError(f"cannot load the processor: {_processor_failure(error)}",
                            file=str(directory)) from None
    # Set up before anything else sees it (ordering requests tokenises while the model still loads).
    tokenizer = getattr(processor, "tokenizer", processor)
    # Decoder-only models continue the last token of each row, so padding must go on the left.
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return processor


def _processor_failure(error: BaseException) -> str:
    """Why the processor did not load, in one line; a missing or broken torchvision named with the fix.

    transformers makes some processors only with torchvision (Qwen2-VL's and Qwen2.5-VL's hold a video
    processor, needed to load them even for images) and says so over three lines, the first of them cut
    mid-sentence. A torchvision built for another torch breaks every processor behind a generic "Could not
    import module", with the cause only in the exception's chain.
    """
    chain: list[BaseException] = []
    link: BaseException | None = error
    while link is not None and len(chain) < 8:
        chain.append(link)
        link = link.__cause__ or link.__context__
    if not any("torchvision" in str(each).lower() for each in chain):
        return one_line(error)
    fix = "install the torchvision build made for the installed torch"
    if importlib.util.find_spec("torchvision") is None:
        said = " ".join(str(error).split()).split(". ")[0].rstrip(".")
        return f"{said} ({fix})"
    return f"torchvision is installed but does not load ({one_line(chain[-1])}): {fix}"


def load_model(processor: Any, directory: Path, device_request: str, dtype_request: str,
               trust_remote_code: bool) -> Loaded:
    torch, transformers = _imports()
    hf: Any = transformers
    device = pick_device(torch, device_request)
    dtype = pick_dtype(torch, dtype_request, device)
    common: dict[str, Any] = {"local_files_only": True, "trust_remote_code": trust_remote_code}
    try:
        with no_transformers_progress_bars():
            model = _from_pretrained(hf, directory, dtype, device, common)
            model.eval()
    except Exception as error:
        message = f"cannot load the model onto {device}: {one_line(error)}"
        raise EndpointError(message, file=str(directory)) from None

    tokenizer = getattr(processor, "tokenizer", processor)
    chat_template = _find_chat_template(processor, tokenizer)
    if chat_template is None:
        # Without the model's own template the prompt format would be a guess, and so would the scores.
        raise EndpointError("the model has no chat template (processor or tokenizer)", file=str(directory))
    eos = model.generation_config.eos_token_id
    eos_ids = {eos} if isinstance(eos, int) else set(eos or [])
    if tokenizer.eos_token_id is not None:
        eos_ids.add(tokenizer.eos_token_id)
    pad_id = tokenizer.pad_token_id
    if pad_id is None:
        pad_id = model.generation_config.pad_token_id
    multimodal = hasattr(processor, "image_processor")
    # Mllama pads each row's images to the batch's most and masks them per token, but its cross-attention
    # output is not masked: a row then attends to another row's padding, and its answer depends on the batch.
    cross_attention = multimodal and "cross_attention_mask" in getattr(processor, "model_input_names", ())
    return Loaded(model, processor, tokenizer, multimodal, chat_template, device, _device_name(torch, device),
                  frozenset(eos_ids), pad_id, equal_image_counts=cross_attention)


def pick_device(torch: Any, requested: str) -> str:
    if requested != "auto":
        if requested.startswith("cuda") and not torch.cuda.is_available():
            raise EndpointError(f"device '{requested}' requested but CUDA is not available", field="device")
        return requested
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(torch: Any, requested: str, device: str) -> Any:
    if requested != "auto":
        aliases = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
        return getattr(torch, aliases.get(requested, requested))
    # Half-precision matmuls on CPU are slow or missing; accelerators take the checkpoint's own dtype.
    return torch.float32 if device == "cpu" else "auto"


def _device_name(torch: Any, device: str) -> str:
    if device.startswith("cuda"):
        return str(torch.cuda.get_device_name(torch.device(device)))
    if device == "cpu":
        return platform.processor() or platform.machine() or "cpu"
    return device


def _from_pretrained(hf: Any, directory: Path, dtype: Any, device: str, common: dict[str, Any]) -> Any:
    version = tuple(int(part) for part in re.findall(r"\d+", hf.__version__)[:2])
    options: dict[str, Any] = {"dtype" if version >= (4, 56) else "torch_dtype": dtype}
    # Weights read straight onto the accelerator, without a whole copy in CPU memory first. Releases before
    # 5 need accelerate for a device map; without it the model is moved after loading.
    direct = device != "cpu" and (version >= (5, 0) or importlib.util.find_spec("accelerate") is not None)
    if direct:
        options["device_map"] = {"": device}
    failures = []
    # Older releases call the vision-language auto class Vision2Seq; text-only chat models are CausalLM.
    for name in ("AutoModelForImageTextToText", "AutoModelForVision2Seq", "AutoModelForCausalLM"):
        if hasattr(hf, name):
            try:
                model = getattr(hf, name).from_pretrained(directory, **common, **options)
            except ValueError as error:  # this auto class does not know the architecture: try the next
                failures.append(f"{name}: {one_line(error)}")
                continue
            return model if direct else model.to(device)
    raise ValueError("no transformers auto class can load it; " + "; ".join(failures))


def _find_chat_template(processor: Any, tokenizer: Any) -> str | None:
    for owner in (processor, tokenizer):
        template = getattr(owner, "chat_template", None)
        if isinstance(template, dict):  # named templates: the unnamed chat one is "default"
            template = template.get("default")
        if isinstance(template, str) and template:
            return template
    return None
