"""SQLite response cache (WAL mode), keyed by the sha256 of everything that decides a model's answer."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import NewType

from pydantic import BaseModel, ValidationError

from mmgauge.core.errors import UserError
from mmgauge.core.paths import cache_root
from mmgauge.core.types import AnswerChoice, GenerationConfig, ImagePart, Message, ModelResponse

CACHE_SCHEMA = 1

#: One stored entry: (key, model fingerprint, response JSON, creation time).
Row = tuple[str, str, str, float]


#: The JSON a request's key is the hash of (`json.dumps` with these settings would build an encoder per call).
_KEY_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)

#: A generation config's part of a cache key: its JSON values as key JSON text (`config_part`).
ConfigPart = NewType("ConfigPart", str)


def config_part(config: GenerationConfig) -> ConfigPart:
    """The config's part of the cache key. Its callers compute it once per config they ask with (the runner
    once per round, the judge once): a dump per request cost more than the rest of its key."""
    return ConfigPart(_KEY_JSON.encode(config.model_dump(mode="json")))


def request_fingerprint(
    model_fingerprint: str,
    config: ConfigPart,
    messages: Sequence[Message],
    choices: Sequence[AnswerChoice] | None = None,
) -> str:
    """sha256 of (model fingerprint, generation config, full request content with image hashes), and of the
    allowed answers where the backend answers from them (None leaves the key as it was without them).

    The JSON hashed is that of the list [CACHE_SCHEMA, model fingerprint, config, content(, choices)], each
    item written as the list's own encoder writes it; the config's text comes ready (`config_part`)."""
    content = [
        [
            message.role,
            [
                ("image", part.image.sha256()) if isinstance(part, ImagePart) else ("text", part.text)
                for part in message.content
            ],
        ]
        for message in messages
    ]
    payload = f"[{CACHE_SCHEMA},{_KEY_JSON.encode(model_fingerprint)},{config},{_KEY_JSON.encode(content)}"
    if choices is not None:
        payload += "," + _KEY_JSON.encode([[choice.answer, choice.text] for choice in choices])
    return hashlib.sha256((payload + "]").encode("utf-8")).hexdigest()


class CacheStats(BaseModel):
    path: str
    entries: int
    models: dict[str, int]
    size_bytes: int


#: Puts written per SQLite transaction: one transaction per answer would cost more than the answer's
#: whole bookkeeping. A full batch is committed by a writer thread while the next one fills, so a kill loses
#: at most twice this many cache entries, never a model's answer (the run log has it); a judge's verdicts,
#: logged nowhere else, are committed one by one (`put_now`).
PUT_BATCH = 256
#: Keys looked up per query when many are asked at once.
GET_BATCH = 500


class ResponseCache:
    """Only successful responses are stored; whether a request may be cached is the caller's decision.

    Writes are buffered and committed in batches (`flush`, and on `close`); reads see the buffer. Inside
    `writing_behind()` a full batch is committed by a writer thread (sqlite releases the GIL): a commit takes
    milliseconds that the event loop sending requests would otherwise spend stalled. One batch at most is in
    flight; the connection is used under a lock, and `flush`, `stats`, `clear`, `close` and the end of the
    block wait for the writer first.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.is_dir():
            example = path / "responses.sqlite"
            raise UserError(f"is a folder; the response cache is a file (e.g. {example})", file=str(path))
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._guard():
            # The runner writes from one thread at a time; check_same_thread=False lets it hand the
            # connection to the executor thread that scoring runs in.
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, model TEXT NOT NULL, response TEXT NOT NULL, created REAL NOT NULL)"
            )
        self._pending: dict[str, Row] = {}
        #: The batch the writer thread is committing (reads see it until it is done).
        self._writing: dict[str, Row] = {}
        self._inflight: Future[None] | None = None
        self._writer: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._behind = False

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """sqlite errors (a damaged, truncated or foreign file; an unwritable place) as one line naming it."""
        try:
            yield
        except sqlite3.DatabaseError as error:  # OperationalError included
            raise UserError(
                f"cannot use the response cache ({error}): delete or move the file, pass another "
                "--cache-path, or run with --no-cache",
                file=str(self.path),
            ) from None

    def get(self, key: str) -> ModelResponse | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Sequence[str]) -> dict[str, ModelResponse]:
        """The cached responses of those `keys` that have one (an entry this version cannot read is a miss:
        the fresh answer replaces it)."""
        found: dict[str, str] = {}
        for buffered in (self._writing, self._pending):  # the newer last
            found.update((key, buffered[key][2]) for key in keys if key in buffered)
        wanted = [key for key in keys if key not in found]
        with self._lock, self._guard():
            for start in range(0, len(wanted), GET_BATCH):
                chunk = wanted[start : start + GET_BATCH]
                marks = ",".join("?" * len(chunk))
                # Only "?" marks go into the text; the keys are bound as parameters.
                query = f"SELECT key, response FROM responses WHERE key IN ({marks})"
                found.update(self._db.execute(query, chunk).fetchall())
        out: dict[str, ModelResponse] = {}
        for key, text in found.items():
            try:
                out[key] = ModelResponse.model_validate_json(text).model_copy(update={"cached": True})
            except ValidationError:
                continue
        return out

    def put(self, key: str, response: ModelResponse, model: str = "") -> None:
        if not response.ok:
            return
        self._pending[key] = (key, model, response.model_dump_json(), time.time())
        if len(self._pending) >= PUT_BATCH:
            if self._behind:
                self._write_behind()
            else:
                self.flush()

    def put_now(self, key: str, response: ModelResponse, model: str = "") -> None:
        """`put`, committed at once: for answers kept nowhere else (a judge's verdicts have no run log), so a
        killed run loses none of them. A commit costs about a millisecond; each such answer cost a call."""
        self.put(key, response, model)
        self.flush()

    @contextmanager
    def writing_behind(self) -> Iterator[None]:
        """Full batches are committed by the writer thread inside the block (the runner's dispatch)."""
        self._behind = True
        try:
            yield
        finally:
            self._behind = False
            self._wait_for_writer()

    def _write_behind(self) -> None:
        """Hand the buffered puts to the writer thread (after the batch before them is committed)."""
        self._wait_for_writer()
        self._writing, self._pending = self._pending, {}
        if self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mmgauge-cache")
        self._inflight = self._writer.submit(self._commit, list(self._writing.values()))

    def _wait_for_writer(self) -> None:
        """Wait for the batch in flight; a failure to write it is raised here."""
        inflight, self._inflight = self._inflight, None
        if inflight is not None:
            try:
                inflight.result()
            finally:
                self._writing = {}

    def _commit(self, rows: list[Row]) -> None:
        with self._lock, self._guard(), self._db:  # one transaction
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT OR REPLACE INTO responses (key, model, response, created) VALUES (?, ?, ?, ?)", rows
            )

    def flush(self) -> None:
        """Commit every buffered put (the writer's batch, then the rest in one transaction)."""
        self._wait_for_writer()
        if not self._pending:
            return
        self._commit(list(self._pending.values()))
        self._pending.clear()

    def stats(self) -> CacheStats:
        self.flush()
        with self._lock, self._guard():
            entries = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            models = dict(self._db.execute("SELECT model, COUNT(*) FROM responses GROUP BY model").fetchall())
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file())
        return CacheStats(path=str(self.path), entries=int(entries), models=models, size_bytes=size)

    def clear(self, model: str | None = None) -> int:
        self.flush()
        with self._lock, self._guard():
            if model is None:
                cursor = self._db.execute("DELETE FROM responses")
            else:
                cursor = self._db.execute("DELETE FROM responses WHERE model = ?", (model,))
            self._db.execute("VACUUM")
        return int(cursor.rowcount)

    def close(self) -> None:
        try:
            self.flush()
        finally:
            if self._writer is not None:
                self._writer.shutdown()
            self._db.close()


def default_cache_path() -> Path:
    return cache_root() / "responses.sqlite"
