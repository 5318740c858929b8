"""`RunFolder`: the one place that knows what a run folder holds and how each file is read and written.

    manifest.json    provenance, and the history of every command that wrote here    (atomic rewrite)
    samples.jsonl    one record per finished request, appended and flushed as it lands (torn tail skipped)
    scored.jsonl     every record after the judge pass, in dataset order              (atomic rewrite)
    results.json     `RunResults`: scores over every record the folder holds           (atomic rewrite)
    judge_audit.json `JudgeAudit`: what the judge decided, judge-free bounds            (atomic rewrite)
    judge_agreement.json  `JudgeAgreement`: `mmgauge audit-judge` studies, newest last (atomic rewrite)
    thumbs/          one JPEG thumbnail per image that came inside a data file, by sha256
    sample-data/     the built-in sample data a default run was given
    mmgauge.log      the command line's DEBUG log of every `mmgauge run` into the folder           (appended)
    .lock            held by the process writing the folder (see `lock.py`)

Everything else in the package goes through this class; no other module names these files.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mmgauge.core.errors import UserError
from mmgauge.core.writing import naming

if TYPE_CHECKING:
    # Imported where used: asking what a folder holds (`has_records`, `has_results`) must stay cheap, as
    # `mmgauge score ...` asks it of every path it is given before reading anything.
    from pydantic import BaseModel

    from mmgauge.core.types import RunManifest, SampleRecord
    from mmgauge.store.judge_audit import JudgeAgreement, JudgeAudit
    from mmgauge.store.lock import FolderLock
    from mmgauge.store.results import RunResults
    from mmgauge.store.runlog import RunLog, Span

_MANIFEST: Final = "manifest.json"
_RECORDS: Final = "samples.jsonl"
_SCORED: Final = "scored.jsonl"
_RESULTS: Final = "results.json"
_JUDGE_AUDIT: Final = "judge_audit.json"
_JUDGE_AGREEMENT: Final = "judge_agreement.json"
_THUMBS: Final = "thumbs"
_SAMPLE_DATA: Final = "sample-data"
_LOCK: Final = ".lock"
_LOG: Final = "mmgauge.log"
_OWN_FILES: Final = (_MANIFEST, _RESULTS, _SCORED, _RECORDS)

Key = tuple[str, str, int]
#: A record this command appended to the log, and where its line is.
Logged = tuple["SampleRecord", "Span"]


def write_atomic(path: Path, content: str | bytes) -> None:
    """Write `content` (text as UTF-8, or bytes as they are) to `path` through a temporary file and a rename:
    readers see the old or the new file."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with naming(path):  # the file meant, not its temporary twin
            tmp.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    except OSError:
        tmp.unlink(missing_ok=True)  # a half-written twin would only take room
        raise
    os.replace(tmp, path)


class RunFolder:
    """A run folder on disk. Reading never needs a lock; writing happens under `lock()`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    # -- what it is ------------------------------------------------------------------------------------------

    def exists(self) -> bool:
        """Whether the folder holds any file a run writes."""
        return self.path.is_dir() and any((self.path / name).exists() for name in _OWN_FILES)

    def require(self) -> RunFolder:
        """`self`, or a one-line error when the path is not a run folder."""
        if not self.path.is_dir():
            raise UserError("no such run folder", file=str(self.path))
        if not self.exists():
            raise UserError("not a run folder: it has no manifest, records or results", file=str(self.path))
        return self

    @staticmethod
    def results_file_of(path: Path) -> RunFolder | None:
        """The folder whose results file `path` is, when `path` names one directly."""
        return RunFolder(path.parent) if path.is_file() and path.name == _RESULTS else None

    def has_results(self) -> bool:
        return (self.path / _RESULTS).is_file()

    def has_manifest(self) -> bool:
        return (self.path / _MANIFEST).is_file()

    def has_records(self) -> bool:
        return (self.path / _RECORDS).is_file() or (self.path / _SCORED).is_file()

    def has_scored(self) -> bool:
        return (self.path / _SCORED).is_file()

    @staticmethod
    def name_of(what: str) -> str:
        """The file name of one of the folder's documents (`manifest`, `records`, `scored`, `results`)."""
        return {"manifest": _MANIFEST, "records": _RECORDS, "scored": _SCORED, "results": _RESULTS,
                "judge_audit": _JUDGE_AUDIT, "judge_agreement": _JUDGE_AGREEMENT}[what]

    def describe_file(self, what: str) -> str:
        """The path of one of the folder's documents, for messages."""
        return str(self.path / self.name_of(what))

    # -- the lock --------------------------------------------------------------------------------------------

    def lock(self, command: list[str], since: str) -> FolderLock:
        from mmgauge.store.lock import FolderLock

        return FolderLock(self.path / _LOCK, command, since)

    # -- records ---------------------------------------------------------------------------------------------

    def open_log(self) -> RunLog:
        """The append-only record log (a torn last line from a kill is cut off first)."""
        from mmgauge.store.runlog import RunLog

        return RunLog(self.path / _RECORDS)

    def raw_records(self) -> dict[Key, SampleRecord]:
        """The last logged record per (benchmark, sample id, round): a retry supersedes its failure."""
        from mmgauge.store.runlog import read_records

        return {record.key: record for record in read_records(self.path / _RECORDS)}

    def records(self, benchmark: str | None = None) -> list[SampleRecord]:
        """The folder's final records: after the judge pass where one ran, else as logged.

        Records logged after the last scoring (a run stopped before it scored) are included as logged.
        """
        from mmgauge.store.runlog import read_records

        scored = {r.key: r for r in read_records(self.path / _SCORED)} if self.has_scored() else {}
        if scored and not self._log_newer_than_scored():
            chosen = list(scored.values())
        else:
            chosen = []
            for key, raw in self.raw_records().items():
                done = scored.get(key)
                same = done is not None and done.response.text == raw.response.text \
                    and done.response.error == raw.response.error
                chosen.append(done if same and done is not None else raw)
        return [r for r in chosen if benchmark is None or r.benchmark == benchmark]

    def line_of(self, key: Key) -> tuple[str, int | None]:
        """The file and line that `records()` took the record for `key` from (for naming it in an error)."""
        from mmgauge.store.runlog import record_line

        if self.has_scored():
            line = record_line(self.path / _SCORED, key)
            if line is not None:
                return str(self.path / _SCORED), line
        return str(self.path / _RECORDS), record_line(self.path / _RECORDS, key)

    def record_dicts(self) -> tuple[list[dict[str, Any]], bool]:
        """The final records as plain dicts (fast: no validation), and whether they include the judge pass.

        For readers of very large runs (the report); the same choice of file as `records()`.
        """
        if self.has_scored() and not self._log_newer_than_scored():
            return _dicts(self.path / _SCORED), True
        raw = _dicts(self.path / _RECORDS)
        if not self.has_scored():
            return raw, False
        scored = {_dict_key(d): d for d in _dicts(self.path / _SCORED)}
        out = []
        for row in raw:
            done = scored.get(_dict_key(row))
            same = done is not None and done.get("response") == row.get("response")
            out.append(done if same and done is not None else row)
        return out, True

    def write_scored(
        self, records: Sequence[SampleRecord], logged: Mapping[Key, Logged] | None = None
    ) -> None:
        """`records` as JSON lines. `logged`: records this command appended to the log and where; a record
        that is that very object (unchanged since) is copied from the log rather than serialised again."""
        copied: dict[int, bytes] = {}
        if logged:
            from mmgauge.store.runlog import read_spans

            reuse = [(index, logged[r.key][1]) for index, r in enumerate(records)
                     if r.key in logged and logged[r.key][0] is r]
            lines = read_spans(self.path / _RECORDS, [span for _, span in reuse])
            if lines is not None:
                copied = {index: line for (index, _), line in zip(reuse, lines, strict=True)}
        write_atomic(self.path / _SCORED, b"".join(
            copied.get(index) or (record.model_dump_json() + "\n").encode("utf-8")
            for index, record in enumerate(records)))

    def _log_newer_than_scored(self) -> bool:
        log = self.path / _RECORDS
        if not log.exists():
            return False
        return log.stat().st_mtime_ns > (self.path / _SCORED).stat().st_mtime_ns

    # -- manifest and results --------------------------------------------------------------------------------

    def read_manifest(self) -> RunManifest | None:
        from mmgauge.core.types import RunManifest

        manifest: RunManifest | None = _read_model(self.path / _MANIFEST, RunManifest, "a run manifest")
        return manifest

    def write_manifest(self, manifest: RunManifest) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path / _MANIFEST, manifest.model_dump_json(indent=2) + "\n")

    def read_results(self) -> RunResults | None:
        from pydantic import ValidationError

        from mmgauge.store.results import RunResults

        path = self.path / _RESULTS
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_bytes())
        except ValueError as error:
            raise UserError(f"is not a run's results: not JSON ({error})", file=str(path)) from None
        if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), dict):
            raise UserError("is not a run's results: no 'benchmarks' object", file=str(path))
        try:
            return RunResults.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or None
            raise UserError(f"is not a run's results: {first['msg']}", file=str(path), field=where) from None

    def write_results(self, results: RunResults) -> None:
        write_atomic(self.path / _RESULTS, results.model_dump_json(indent=2) + "\n")

    def read_judge_audit(self) -> JudgeAudit | None:
        from mmgauge.store.judge_audit import JudgeAudit

        audit: JudgeAudit | None = _read_model(self.path / _JUDGE_AUDIT, JudgeAudit, "a judge audit")
        return audit

    def write_judge_audit(self, audit: JudgeAudit) -> None:
        write_atomic(self.path / _JUDGE_AUDIT, audit.model_dump_json(indent=2) + "\n")

    def read_judge_agreement(self) -> JudgeAgreement | None:
        from mmgauge.store.judge_audit import JudgeAgreement

        agreement: JudgeAgreement | None = _read_model(
            self.path / _JUDGE_AGREEMENT, JudgeAgreement, "a judge agreement document")
        return agreement

    def write_judge_agreement(self, agreement: JudgeAgreement) -> None:
        write_atomic(self.path / _JUDGE_AGREEMENT, agreement.model_dump_json(indent=2) + "\n")

    def extra_json_files(self) -> list[Path]:
        """JSON files beside the folder's own (e.g. a General-Level report saved into the folder)."""
        if not self.path.is_dir():
            return []
        own = (_MANIFEST, _RESULTS, _JUDGE_AUDIT, _JUDGE_AGREEMENT)
        return sorted(p for p in self.path.glob("*.json") if p.name not in own)

    # -- images and sample data ------------------------------------------------------------------------------

    def thumbnail(self, sha256: str) -> Path:
        return self.path / _THUMBS / f"{sha256}.jpg"

    def write_thumbnail(self, sha256: str, jpeg: bytes) -> None:
        target = self.thumbnail(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, jpeg)

    def log_file(self) -> Path:
        """Where the command line appends its log of the runs into this folder."""
        return self.path / _LOG

    def sample_data_dir(self, benchmark: str) -> Path:
        return self.path / _SAMPLE_DATA / benchmark


def _read_model(path: Path, model: type[BaseModel], what: str) -> Any:
    from pydantic import ValidationError

    if not path.is_file():
        return None
    try:
        return model.model_validate_json(path.read_bytes())
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or None
        raise UserError(f"is not {what}: {first['msg']}", file=str(path), field=where) from None
    except OSError as error:
        raise UserError(f"cannot read {what}: {error.strerror}", file=str(path)) from None


def _dicts(path: Path) -> list[dict[str, Any]]:
    """The last record per key of a JSONL file, as dicts, in file order of first appearance."""
    from mmgauge.store.runlog import complete_lines

    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for number, line in complete_lines(path):
        try:
            data = json.loads(line)
        except ValueError:
            raise UserError("not a sample record (not JSON)", file=str(path), line=number) from None
        if not isinstance(data, dict) or "response" not in data or "sample_id" not in data:
            raise UserError("not a sample record", file=str(path), line=number)
        latest[_dict_key(data)] = data
    return list(latest.values())


def _dict_key(data: dict[str, Any]) -> tuple[Any, ...]:
    return (data.get("benchmark"), str(data.get("sample_id")), int(data.get("round") or 0))
