"""The stored and exchanged types. Every model that is written to disk carries `schema_version`."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import os
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from mmgauge.core.errors import UserError
from mmgauge.core.schema_version import SCHEMA_VERSION as SCHEMA_VERSION


class ImageRef(BaseModel):
    """An image given as a file path, raw bytes or base64 text; decoded only when asked.

    Large TSVs keep their images as base64 text, so a sample holds the text and never the decoded image.
    Base64 text and files are checked when loaded: broken base64, an unreadable file or bytes that are no
    image raise a `UserError` naming where the image came from (`origin_*`, set by the loader).
    """

    model_config = ConfigDict(frozen=True)

    path: str | None = None
    data: bytes | None = Field(default=None, exclude=True)
    b64: str | None = Field(default=None, exclude=True)
    origin_file: str | None = Field(default=None, exclude=True)
    origin_line: int | None = Field(default=None, exclude=True)
    origin_field: str | None = Field(default=None, exclude=True)
    _sha256: str | None = PrivateAttr(default=None)

    def load(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.b64 is not None:
            data = self._decode(self.b64)
        elif self.path is not None:
            try:
                data = Path(self.path).read_bytes()
            except OSError as error:
                raise self._broken(f"cannot read image file {self.path}: {error.strerror}") from None
        else:
            raise ValueError("an ImageRef needs a path, bytes or base64 text")
        if not _is_image(data):
            raise self._broken("the image data is not an image PIL can read")
        return data

    def _decode(self, text: str) -> bytes:
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            try:  # some writers wrap base64 text in lines
                return base64.b64decode("".join(text.split()), validate=True)
            except (binascii.Error, ValueError) as error:
                raise self._broken(f"broken base64 image text ({error})") from None

    def origin(self) -> str:
        """Where the image came from, for messages: ``file:line, field 'image'``, its path, or 'bytes'."""
        file = self.origin_file or self.path
        if file is None:
            return "an image given as bytes"
        where = file if self.origin_line is None else f"{file}:{self.origin_line}"
        return where if self.origin_field is None else f"{where}, field '{self.origin_field}'"

    def _broken(self, message: str) -> UserError:
        file = self.origin_file or self.path
        return UserError(message, file=file, line=self.origin_line, field=self.origin_field)

    def sha256(self) -> str:
        known = self._known_sha256()
        if known is None:
            if self._from_file():
                known = self._sha256 = _file_sha256(self.path)
            else:
                known, _ = self.sha256_and_bytes()
        return known

    def sha256_and_bytes(self) -> tuple[str, bytes | None]:
        """`sha256()`, and the bytes it decoded to compute it; None when the hash was known already or came
        from a file's hash (the bytes of base64 text cost a decode, which a thumbnail can then skip)."""
        known = self._known_sha256()
        if known is not None or self._from_file():
            return self.sha256(), None
        data = self.load()
        known = self._sha256 = hashlib.sha256(data).hexdigest()
        return known, data

    def _known_sha256(self) -> str | None:
        # Read from pydantic's dict of private values: `self._sha256` goes through the model's __getattr__
        # (2 µs), and a request asks its images' hashes several times (cache key, records, encoder).
        private = self.__pydantic_private__
        known = private.get("_sha256") if private is not None else None
        return None if known is None else str(known)

    def _from_file(self) -> bool:
        return self.path is not None and self.data is None and self.b64 is None


#: sha256 of image files by (path, size, modification time): many samples name one image file (MME's two
#: questions per image, a POPE image asked about many objects), and each file is read and hashed once.
_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def _file_sha256(path: str | None) -> str:
    assert path is not None
    try:
        info = os.stat(path)  # not Path(path).stat(): this runs once per sample, pathlib's parsing costs more
    except OSError:
        return hashlib.sha256(ImageRef(path=path).load()).hexdigest()  # raises the one-line error
    key = (path, info.st_size, info.st_mtime_ns)
    known = _FILE_HASHES.get(key)
    if known is None:
        known = _FILE_HASHES[key] = hashlib.sha256(ImageRef(path=path).load()).hexdigest()
    return known


def _is_image(data: bytes) -> bool:
    if data.startswith(_IMAGE_SIGNATURES):
        return True
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)):
                return True  # opening reads the header only: enough to tell an image from garbage
    except Image.DecompressionBombError:
        return True  # an image, only a huge one: whoever decodes it refuses it for that request alone
    except (UnidentifiedImageError, OSError, ValueError):
        return False


#: PNG, JPEG, GIF, BMP, TIFF (both byte orders), WEBP's RIFF container: accepted without opening PIL.
_IMAGE_SIGNATURES = (
    b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM", b"II*\x00", b"MM\x00*", b"RIFF",
)


class ImagePool:
    """One `ImageRef` per distinct embedded image of a dataset being loaded.

    A VLMEvalKit TSV stores each image once and refers to it by index from every other row that shows it
    (MMBench's circular copies, MME's question pairs), and a parquet split repeats an image's bytes in each
    row. A reference memoises its hash, so handing every such row the same reference decodes and hashes each
    distinct image once per run, not once per request. Keyed by the content itself (equal text or bytes), so
    sharing never depends on object identity; the first row that holds an image names it in messages.

    Contents are found by a few slices of them, then compared whole: hashing all of a 1 MB image's text
    costs 0.7 ms, and comparing it with itself (the rows that refer to one cell share its text) nothing.
    """

    def __init__(self, origin_file: str, origin_field: str = "image") -> None:
        self.origin_file = origin_file
        self.origin_field = origin_field
        self._refs: dict[object, list[tuple[str | bytes, ImageRef]]] = {}

    def embedded(self, content: str | bytes, line: int) -> ImageRef:
        """The reference for this base64 text or these image bytes, first met on `line`."""
        known = self._refs.setdefault(_sampled(content), [])
        for other, ref in known:
            if other == content:
                return ref
        text, data = (content, None) if isinstance(content, str) else (None, content)
        ref = ImageRef(b64=text, data=data, origin_file=self.origin_file, origin_line=line,
                       origin_field=self.origin_field)
        known.append((content, ref))
        return ref


#: Contents this long or shorter are their own key in `ImagePool`; longer ones are keyed by slices of them.
_WHOLE_KEY: Final = 4096
_SLICES: Final = 16


def _sampled(content: str | bytes) -> object:
    """A key equal for equal contents, cheap for long ones: the length and 16 slices of 16 items spread over
    the content (images of one size share their first and last bytes, headers and trailers, not the rest)."""
    size = len(content)
    if size <= _WHOLE_KEY:
        return content
    step = size // _SLICES
    return (size, *(content[i * step : i * step + 16] for i in range(_SLICES)))


class Sample(BaseModel):
    """One question of a benchmark. `id` is stable across runs: resume and caching rely on it."""

    schema_version: int = SCHEMA_VERSION
    id: str
    benchmark: str
    question: str
    options: dict[str, str] = Field(default_factory=dict)
    answer: str | None = None
    images: list[ImageRef] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class TextPart(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ImagePart(BaseModel):
    type: Literal["image"] = "image"
    image: ImageRef


ContentPart = Annotated[TextPart | ImagePart, Field(discriminator="type")]


class Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: list[ContentPart]

    @classmethod
    def user(cls, text: str, images: list[ImageRef] | None = None) -> Message:
        parts: list[TextPart | ImagePart] = [ImagePart(image=image) for image in images or []]
        parts.append(TextPart(text=text))
        return cls(role="user", content=parts)

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", content=[TextPart(text=text)])

    def text(self) -> str:
        return "\n".join(part.text for part in self.content if isinstance(part, TextPart))

    def images(self) -> list[ImageRef]:
        return [part.image for part in self.content if isinstance(part, ImagePart)]


class GenerationConfig(BaseModel):
    """Decoding settings. Temperature 0 (greedy) is the default: it makes runs reproducible and cacheable."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=512, gt=0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = 0
    system_prompt: str | None = None

    @property
    def deterministic(self) -> bool:
        return self.temperature == 0.0


class AnswerChoice(BaseModel):
    """One answer a question allows, as the benchmark offers it: `answer` is what the model replies to give it
    ("Yes", "B"), `text` what it stands for where that differs (an option's own text; "" for yes/no).

    A backend that can weigh the allowed answers (the embedded model scores each by likelihood) uses them;
    the others answer the messages as always.
    """

    model_config = ConfigDict(frozen=True)

    answer: str
    text: str = ""
    #: Choosing it affirms what the question asks ("Yes" to a yes/no question), so how well the image backs
    #: the question's own words is evidence for it.
    affirms: bool = False


class ChoiceScore(BaseModel):
    """How one allowed answer scored where a backend chose the answer among them (higher `score` wins).

    `scored_as` is what the likelihood was taken of (the answer itself, or the option's text it stands for);
    `terms` what the score is made of, by name, as the backend computed it.
    """

    answer: str
    score: float
    scored_as: str = ""
    terms: dict[str, float] = Field(default_factory=dict)


class Usage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class ModelResponse(BaseModel):
    """What a backend returns. A response with `error` set is a failed request and is never scored."""

    schema_version: int = SCHEMA_VERSION
    text: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = 0.0
    error: str | None = None
    #: A short label that errors of one kind share, to count them by (`HTTP 400 context_length_exceeded`,
    #: `cannot connect`); None where the backend gives none (the error itself is the label).
    error_code: str | None = None
    #: The error is the request's own (an HTTP 400, a context too long, the same reply to every retry):
    #: running the same command again gets the same error.
    error_permanent: bool = False
    #: The answer stopped at the token limit (finish_reason "length"): it is scored, and counted as truncated.
    truncated: bool = False
    cached: bool = False
    #: What the backend added to the request before the model saw it, if anything: the embedded model's
    #: OCR text of the images (its text model never sees the pixels, only this).
    context: str | None = None
    #: Where the backend chose the answer among the request's allowed answers (`Request.choices`) rather than
    #: generating it: every candidate's score, in the order offered. None for a generated answer.
    choice_scores: list[ChoiceScore] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


class Extraction(BaseModel):
    """The answer read out of a model's text, and HOW: `method` names the rule, judge or failure."""

    answer: str | None
    method: str
    judge_reply: str | None = None
    detail: str | None = None
    #: The model's reasoning (`<think>...</think>`) was removed before the answer was read; the record's raw
    #: text keeps it.
    reasoning_removed: bool = False


class StoredImage(BaseModel):
    """How a record refers to an image it was asked about, so readers never need the dataset again.

    An image that came from a file keeps its resolved path; one that came inside a data file (TSV base64,
    parquet bytes) has a thumbnail written once into the run folder, found by `sha256`.
    """

    sha256: str
    path: str | None = None


class SampleRecord(BaseModel):
    """One finished request: appended to the run's record log as soon as the response arrives."""

    schema_version: int = SCHEMA_VERSION
    benchmark: str
    sample_id: str
    round: int = 0
    fingerprint: str
    prompt: str
    response: ModelResponse
    extraction: Extraction | None = None
    target: str | None = None
    correct: bool | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    images: list[StoredImage] = Field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.benchmark, self.sample_id, self.round)


class ModelSpec(BaseModel):
    """Which backend and model; holds the NAME of an API-key environment variable, never the key."""

    model_config = ConfigDict(frozen=True)

    backend: str
    model: str | None = None
    base_url: str | None = None
    path: str | None = None
    api_key_env: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    def label(self) -> str:
        target = self.model or self.path or ""
        return f"{self.backend}:{target}" if target else self.backend


class DatasetEntry(BaseModel):
    """One benchmark's data in a run: where it came from (resolved path), its fingerprint and size."""

    benchmark: str
    data: str
    fingerprint: str
    #: Questions in the whole dataset (a `--limit` run asks fewer; its results are then `partial`).
    samples: int
    #: Records a complete run holds: samples x rounds. None in folders written before it was recorded.
    expected: int | None = None
    #: The data is mmgauge's built-in synthetic sample, not the real benchmark.
    builtin_sample: bool = False
    options: dict[str, Any] = Field(default_factory=dict)


class GenerationStats(BaseModel):
    """What an in-process model measured while one command generated (endpoints and Ray runs record none)."""

    #: Where the model ran as torch names it (`cuda:0`, `cpu`, `mps`) and what that is (`NVIDIA H200`).
    device: str
    device_name: str
    requests: int
    completion_tokens: int
    #: Seconds the model spent generating, summed over batches (preparing inputs and decoding left out).
    generate_s: float
    #: Completion tokens per second of `generate_s`.
    tokens_per_s: float
    #: `torch.cuda.max_memory_allocated` over the command; None where the model is not on a CUDA device.
    peak_gpu_memory_bytes: int | None = None


class Invocation(BaseModel):
    """One command that wrote into a run folder, with what it did there."""

    command: list[str] = Field(default_factory=list)
    started_at: str
    finished_at: str | None = None
    #: running | finished | failed (requests failed) | interrupted | stopped (an error ended it) | killed
    status: str = "running"
    toolkit_version: str = ""
    host: str = ""
    pid: int | None = None
    benchmarks: list[str] = Field(default_factory=list)
    limit: int | None = None
    #: Per benchmark: requested, cache_hits, resumed, failed, judge_calls, records.
    counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    #: The model's own throughput figures in this command, where the backend ran it in this process.
    generation: GenerationStats | None = None


class HostInfo(BaseModel):
    hostname: str
    platform: str
    python: str


class RunManifest(BaseModel):
    """Provenance of a run: everything needed to say where each number came from."""

    schema_version: int = SCHEMA_VERSION
    toolkit_version: str
    model: ModelSpec
    model_fingerprint: str
    #: The backend's own account of itself (weights, endpoints, devices; never secrets).
    backend: dict[str, Any] = Field(default_factory=dict)
    #: Where requests ran (local, or a Ray cluster's workers) in the latest session.
    executor: dict[str, Any] = Field(default_factory=dict)
    #: Versions of the libraries that can change a number, as installed when the run (last) started.
    libraries: dict[str, str] = Field(default_factory=dict)
    generation: GenerationConfig
    judge: ModelSpec | None = None
    #: The judge backend's own account of itself, as `backend` is the model's (what its server serves).
    judge_backend: dict[str, Any] = Field(default_factory=dict)
    datasets: list[DatasetEntry]
    seeds: dict[str, int | None] = Field(default_factory=dict)
    started_at: str
    updated_at: str
    finished_at: str | None = None
    host: HostInfo
    #: The command that started the run folder; every later one is in `invocations`.
    command: list[str] = Field(default_factory=list)
    #: The merged run configuration (`RunConfig` fields) of the latest run into the folder: `mmgauge run
    #: --config` reads it back to ask the same requests again. None in manifests written before it was kept.
    config: dict[str, Any] | None = None
    invocations: list[Invocation] = Field(default_factory=list)
