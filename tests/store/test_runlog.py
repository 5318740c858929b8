from __future__ import annotations

from pathlib import Path

import pytest

from mmgauge.core.errors import UserError
from mmgauge.core.types import ModelResponse, SampleRecord
from mmgauge.store.run_folder import RunFolder
from mmgauge.store.runlog import RunLog, latest_records, read_records


def record(sample_id: str, text: str | None = "yes", error: str | None = None) -> SampleRecord:
    return SampleRecord(
        benchmark="toy",
        sample_id=sample_id,
        fingerprint="f" + sample_id,
        prompt="p",
        response=ModelResponse(text=text, error=error),
    )


def test_append_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    with RunLog(path) as log:
        log.append(record("a"))
        log.append(record("b"))
    assert [r.sample_id for r in read_records(path)] == ["a", "b"]


def test_torn_last_line_is_ignored_and_cut_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    with RunLog(path) as log:
        log.append(record("a"))
    whole = path.read_bytes()
    path.write_bytes(whole + record("b").model_dump_json().encode()[:25])  # a kill -9 mid-write
    assert [r.sample_id for r in read_records(path)] == ["a"]
    with RunLog(path) as log:
        log.append(record("c"))
    assert path.read_bytes().startswith(whole)
    assert [r.sample_id for r in read_records(path)] == ["a", "c"]


def test_latest_record_wins(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    with RunLog(path) as log:
        log.append(record("a", text=None, error="HTTP 500"))
        log.append(record("a", text="no"))
    latest = latest_records(path)
    assert latest[("toy", "a", 0)].response.text == "no"


def test_corrupt_middle_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_text(record("a").model_dump_json() + "\n{not json}\n" + record("b").model_dump_json() + "\n")
    with pytest.raises(UserError, match=r"samples.jsonl:2"):
        list(read_records(path))


def _varied_records() -> list[SampleRecord]:
    texts = ["yes", "ü\u2028line\rsep 😀", "", "a\nb", '"quoted" \\ back']
    out = [record(f"s{i}").model_copy(update={"response": ModelResponse(text=text)})
           for i, text in enumerate(texts)]
    out.append(record("failed").model_copy(update={"response": ModelResponse(error="HTTP 500 ✗")}))
    out.append(record("s0").model_copy(update={"round": 1}))
    return out


def test_scored_lines_copied_from_the_log_equal_fresh_dumps(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    (tmp_path / "run").mkdir()
    older = record("older").model_dump_json() + "\n"
    (tmp_path / "run" / "samples.jsonl").write_text(older, encoding="utf-8")
    records = _varied_records()
    logged = {}
    with folder.open_log() as log:
        for r in records:
            logged[r.key] = (r, log.append(r))
    # Scored in another order; one record changed after it was logged (a judge's verdict), one never logged.
    changed = records[1].model_copy(update={"correct": True})
    scored = [records[3], changed, records[0], records[6], records[5], records[4], record("extra")]
    reference = "".join(r.model_dump_json() + "\n" for r in scored).encode("utf-8")
    folder.write_scored(scored, logged)
    assert (tmp_path / "run" / "scored.jsonl").read_bytes() == reference
    folder.write_scored(scored)
    assert (tmp_path / "run" / "scored.jsonl").read_bytes() == reference
    # A log that no longer holds the lines (cut short) is not trusted: every record is dumped again.
    log_path = tmp_path / "run" / "samples.jsonl"
    log_path.write_bytes(log_path.read_bytes()[:-10])
    folder.write_scored(scored, logged)
    assert (tmp_path / "run" / "scored.jsonl").read_bytes() == reference
    assert [r.key for r in read_records(log_path)][:2] == [("toy", "older", 0), records[0].key]


def test_each_line_is_in_the_file_as_it_is_appended_and_as_model_dump_json_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "samples.jsonl"
    first, second = record("a", text='ü 中文 "quoted"\n'), record("b")
    with RunLog(path) as log:
        spans = [log.append(first)]
        # Before the log is closed or anything else is written: what a kill -9 now would leave.
        assert path.read_bytes() == (first.model_dump_json() + "\n").encode()
        spans.append(log.append(second))
    assert path.read_bytes() == "".join(r.model_dump_json() + "\n" for r in (first, second)).encode()
    assert spans == [(0, spans[0][1]), (spans[0][1], spans[1][1])]
