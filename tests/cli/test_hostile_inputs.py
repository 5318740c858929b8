"""Hostile and broken inputs through the command line: each ends in one line naming the file and what is
wrong, with exit status 2 (every case here was a traceback, a silent wrong value or a wrong location)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

HS_MODEL = "visual =~ x1 + x2 + x3\ntextual =~ x4 + x5 + x6\nspeed =~ x7 + x8 + x9\n"


def truncated_workbook(tmp_path: Path) -> Path:
    whole = tmp_path / "whole.xlsx"
    table = pd.DataFrame({"index": [0, 1], "question": ["q", "r"], "prediction": ["A", "B"]})
    table.to_excel(whole, index=False)
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(whole.read_bytes()[:-40])
    return broken


@pytest.mark.parametrize(
    "command",
    [
        ("score", "mmbench", "{xlsx}"),
        ("score", "level", "{xlsx}"),
        ("score", "mme", "{xlsx}"),
        ("score", "m3gia", "--language", "en", "--counts", "{xlsx}"),
        ("run", "--model", "replay:{xlsx}", "--bench", "mmbench", "--limit", "1", "--out", "{tmp}/run"),
    ],
)
def test_a_truncated_or_empty_workbook_is_one_line_naming_it(
    cli: Any, tmp_path: Path, command: tuple[str, ...]
) -> None:
    broken = truncated_workbook(tmp_path)
    args = [part.format(xlsx=broken, tmp=tmp_path) for part in command]
    line = cli(*args).error_line()
    assert f"{broken}: cannot read the workbook (damaged, truncated or not .xlsx)" in line
    empty = tmp_path / "empty.xlsx"
    empty.write_bytes(b"")
    args = [part.format(xlsx=empty, tmp=tmp_path) for part in command]
    assert cli(*args).error_line() == f"error: {empty}: empty file (0 bytes), not a workbook"


def holzinger_swineford(tmp_path: Path) -> tuple[pd.DataFrame, Path]:
    rng = np.random.default_rng(1939)
    frame = pd.DataFrame(rng.normal(size=(60, 9)), columns=[f"x{i}" for i in range(1, 10)])
    model = tmp_path / "hs.lav"
    model.write_text(HS_MODEL, encoding="utf-8")
    return frame, model


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("constant", "data.csv, field 'x2': constant column (every value is 5)"),
        ("infinite", "data.csv:5, field 'x2': infinite value"),
        ("one_row", "data.csv: need at least two rows of observations, found 1"),
        ("text", "data.csv:5, field 'x2': missing or non-numeric value"),
    ],
)
def test_cfa_data_that_cannot_be_fitted(cli: Any, tmp_path: Path, damage: str, expected: str) -> None:
    frame, model = holzinger_swineford(tmp_path)
    frame = frame.astype(object)
    if damage == "constant":
        frame["x2"] = 5.0
    elif damage == "infinite":
        frame.loc[3, "x2"] = np.inf
    elif damage == "one_row":
        frame = frame.head(1)
    else:
        frame.loc[3, "x2"] = "n/a"
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    assert expected in cli("cfa", "check", data).error_line()
    pytest.importorskip("semopy")
    assert expected in cli("cfa", "fit", "--data", data, "--model", model).error_line()


def test_cfa_fewer_rows_than_variables_is_singular_data(cli: Any, tmp_path: Path) -> None:
    frame, model = holzinger_swineford(tmp_path)
    data = tmp_path / "data.csv"
    frame.head(5).to_csv(data, index=False)
    assert "data.csv: the correlation matrix is singular (5 rows for 9 variables)" in cli(
        "cfa", "check", data
    ).error_line()
    pytest.importorskip("semopy")
    line = cli("cfa", "fit", "--data", data, "--model", model).error_line()
    assert "data.csv: the sample covariance matrix is singular (5 rows for 9 variables)" in line


def test_lav_files_errors_name_the_file_and_line(cli: Any, tmp_path: Path) -> None:
    pytest.importorskip("semopy")
    frame, _ = holzinger_swineford(tmp_path)
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    latin1 = tmp_path / "latin1.lav"
    latin1.write_bytes("# mod\u00e8le\nf =~ x1 + x2 + x3\n".encode("latin-1"))
    assert "latin1.lav:1: not UTF-8 text (byte 0xe8)" in cli(
        "cfa", "fit", "--data", data, "--model", latin1
    ).error_line()
    refused = tmp_path / "refused.lav"
    refused.write_text("f =~ x1 + x2 + x3\n\ng := 2*f\n", encoding="utf-8")
    assert "refused.lav:3: lavaan operator ':=' is not supported" in cli(
        "cfa", "fit", "--data", data, "--model", refused
    ).error_line()
    unknown = tmp_path / "unknown.lav"
    unknown.write_text("f =~ x1 + x2 + y9\n", encoding="utf-8")
    line = cli("cfa", "fit", "--data", data, "--model", unknown).error_line()
    assert "unknown.lav, field 'y9': model variable is neither a latent (=~) nor a column of" in line
    assert str(data) in line
    too_few = tmp_path / "too_few.lav"
    too_few.write_text("f =~ x1 + x2\n", encoding="utf-8")
    assert "too_few.lav: the model is not identified: 4 free parameters for 3 (co)variances" in cli(
        "cfa", "fit", "--data", data, "--model", too_few
    ).error_line()


def json_tokens(text: str) -> str:
    """Whether ``text`` is strict JSON (no NaN/Infinity): parse it refusing the non-standard constants."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in JSON output")

    json.loads(text, parse_constant=refuse)
    return text


def m3gia_counts(tmp_path: Path) -> tuple[Path, list[str]]:
    from importlib import resources
    from io import StringIO

    cfa = resources.files("mmgauge").joinpath("data").joinpath("m3gia").joinpath("cfa")
    table = pd.read_csv(StringIO(cfa.joinpath("en.csv").read_text(encoding="utf-8")))
    table = table.drop(columns=["subid", "total_acc", "Unnamed: 20"]).head(3)
    path = tmp_path / "counts.csv"
    table.to_csv(path, index=False)
    return path, [str(c) for c in table.columns]


@pytest.mark.parametrize(
    ("sd", "expected"),
    [
        ("nan", "stats.csv:17, field 'Raven': human SD must be a positive finite number, not nan"),
        ("", "stats.csv:17, field 'Raven': human SD must be a positive finite number, not nan"),
        ("0", "stats.csv:17, field 'Raven': human SD must be a positive finite number, not 0.0"),
        ("-2", "stats.csv:17, field 'Raven': human SD must be a positive finite number, not -2.0"),
        ("inf", "stats.csv:17, field 'Raven': human SD must be a positive finite number, not inf"),
        ("wide", "stats.csv:17, field 'sd': not a number: 'wide'"),
    ],
)
def test_human_stats_that_would_make_nan_scores(cli: Any, tmp_path: Path, sd: str, expected: str) -> None:
    counts, columns = m3gia_counts(tmp_path)
    stats = tmp_path / "stats.csv"
    lines = [f"{column},3,{sd if column == 'Raven' else '1.5'}" for column in columns]
    stats.write_text("column,mean,sd\n" + "\n".join(lines) + "\n")
    assert columns.index("Raven") + 2 == 17
    for extra in ((), ("--json",)):
        result = cli("score", "m3gia", "--language", "en", "--counts", counts, "--scale", "standardised",
                     "--human-stats", stats, *extra)
        assert expected in result.error_line() and result.out == ""


def test_human_stats_text_mean_and_missing_column(cli: Any, tmp_path: Path) -> None:
    counts, columns = m3gia_counts(tmp_path)
    stats = tmp_path / "stats.csv"
    lines = [f"{column},{'many' if column == columns[2] else 3},1.5" for column in columns[:-1]]
    stats.write_text("column,mean,sd\n" + "\n".join(lines) + "\n")
    args = ("score", "m3gia", "--language", "en", "--counts", counts, "--scale", "standardised")
    line = cli(*args, "--human-stats", stats).error_line()
    assert "stats.csv:4, field 'mean': not a number: 'many'" in line
    stats.write_text("column,mean,sd\n" + "\n".join(lines).replace("many", "3") + "\n")
    line = cli(*args, "--human-stats", stats).error_line()
    assert f"stats.csv, field '{columns[-1]}': human statistics lack this column" in line


def test_m3gia_count_errors_name_the_files_own_line(cli: Any, tmp_path: Path) -> None:
    # The header is line 1: the first row of counts is line 2 (it was reported as line 1).
    counts, _ = m3gia_counts(tmp_path)
    table = pd.read_csv(counts).astype(object)
    table.loc[0, "Raven"] = "many"
    table.to_csv(counts, index=False)
    line = cli("score", "m3gia", "--language", "en", "--counts", counts).error_line()
    assert "counts.csv:2, field 'Raven': not a number: 'many'" in line
    table.loc[0, "Raven"] = 1
    table.loc[2, "Logo"] = 999
    table.to_csv(counts, index=False)
    assert "counts.csv:4, field 'Logo': count 999 outside" in cli(
        "score", "m3gia", "--language", "en", "--counts", counts
    ).error_line()
    # A workbook: sheet row 1 is the header; a blank row dropped above keeps the rows below on their own row.
    book = tmp_path / "counts.xlsx"
    blank = pd.DataFrame([[None] * table.shape[1]], columns=table.columns)
    pd.concat([table.head(2), blank, table.tail(1)]).to_excel(book, index=False)
    assert "counts.xlsx:5, field 'Logo': count 999 outside" in cli(
        "score", "m3gia", "--language", "en", "--counts", book
    ).error_line()


def test_json_output_is_strict_json_with_null_for_non_finite_numbers(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mmgauge.cfa import fit as cfa_fit

    real = cfa_fit.fit_cfa

    def undefined_indices(*args: Any, **kwargs: Any) -> Any:
        return real(*args, **kwargs).model_copy(update={"cfi": float("nan"), "tli": float("-inf")})

    pytest.importorskip("semopy")
    monkeypatch.setattr(cfa_fit, "fit_cfa", undefined_indices)
    frame, model = holzinger_swineford(tmp_path)
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    result = cli("cfa", "fit", "--data", data, "--model", model, "--json")
    assert result.code == 0
    out = json.loads(json_tokens(result.out))
    assert out["cfi"] is None and out["tli"] is None and out["chisq"] > 0
    assert result.err.strip() == "note: not a finite number, written as null: cfi, tli"


def test_every_json_option_prints_through_the_strict_writer() -> None:
    # `--json` commands must not call json.dumps themselves (it writes bare NaN/Infinity by default).
    import mmgauge.cli

    folder = Path(mmgauge.cli.__file__).parent
    offenders = [
        p.name for p in folder.glob("*.py") if p.name != "json_output.py" and "json.dumps(" in p.read_text()
    ]
    assert offenders == []


def test_model_config_settings_must_be_a_mapping(cli: Any, tmp_path: Path) -> None:
    config = tmp_path / "model.yaml"
    config.write_text("backend: mock\nmodel: 'yes'\nsettings:\n  - concurrency: 2\n")
    run = cli("run", "--model", config, "--bench", "mme", "--limit", "1", "--out", tmp_path / "run")
    line = run.error_line()
    assert "model.yaml, field 'settings': settings must be a mapping, not a list" in line


def sqlite_cache(tmp_path: Path) -> bytes:
    from mmgauge.core.types import ModelResponse
    from mmgauge.store.cache import ResponseCache

    cache = ResponseCache(tmp_path / "whole.sqlite")
    for i in range(400):
        cache.put(f"k{i}", ModelResponse(text="answer " * 40), model="m")
    cache._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache.close()
    return (tmp_path / "whole.sqlite").read_bytes()


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        ("garbage", "cannot use the response cache (file is not a database)"),
        ("truncated", "cannot use the response cache (database disk image is malformed)"),
        ("folder", "is a folder; the response cache is a file"),
    ],
)
def test_damaged_response_cache_is_one_line_naming_it(
    cli: Any, tmp_path: Path, damage: str, expected: str
) -> None:
    path = tmp_path / "responses.sqlite"
    if damage == "garbage":
        path.write_bytes(b"not a database at all\n" * 20)
    elif damage == "truncated":
        path.write_bytes(sqlite_cache(tmp_path)[:100])
    else:
        path.mkdir()
    for command in (("cache", "stats"), ("cache", "clear"),
                    ("run", "--model", "mock", "--bench", "mme", "--limit", "1", "--out", tmp_path / "run")):
        line = cli(*command, "--cache-path", path).error_line()
        assert f"{path}: {expected}" in line


FORMULA_ANSWERS = ['=HYPERLINK("http://x","B")', "+1+2", "-2+3", "@SUM(A1)", "\t=1+1", "\r=1+1", "B"]


def test_export_mmbench_never_writes_an_answer_as_a_formula(cli: Any, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from mmgauge.benchmarks.mmbench.bench import MMBenchBenchmark
    from mmgauge.core.types import ModelResponse, SampleRecord

    bench = MMBenchBenchmark()
    data = bench.sample_data(tmp_path)
    samples = bench.load(data).samples
    records = [
        SampleRecord(benchmark="mmbench", sample_id=s.id, fingerprint="f", prompt="p",
                     response=ModelResponse(text=FORMULA_ANSWERS[i % len(FORMULA_ANSWERS)]),
                     metadata=bench.record_metadata(s)).model_dump_json()
        for i, s in enumerate(samples)
    ]
    (tmp_path / "samples.jsonl").write_text("\n".join(records) + "\n")
    out = tmp_path / "sub.xlsx"
    assert cli("export", "mmbench", data, tmp_path, "--out", out).code == 0
    sheet = load_workbook(out).active
    assert sheet is not None
    cells = [cell for row in sheet.iter_rows(min_row=2) for cell in row if isinstance(cell.value, str)]
    assert cells and all(cell.data_type == "s" for cell in cells)  # no cell is a formula
    column = [c.value for c in sheet[1]].index("prediction")
    answers = [row[column] for row in sheet.iter_rows(min_row=2)]
    formula_like = [cell for cell in answers if cell.value != "B"]
    assert formula_like and all(cell.quotePrefix for cell in formula_like)
    # The answers themselves are unchanged (XML reads a lone CR back as LF), so the file still scores as what
    # the model said.
    written = pd.read_excel(out, dtype=str, keep_default_na=False)["prediction"].tolist()
    expected = [FORMULA_ANSWERS[i % len(FORMULA_ANSWERS)].replace("\r", "\n") for i in range(len(samples))]
    assert written == expected


def mmbench_rows(question_of_row_1: str) -> str:
    header = "index\tquestion\tA\tB\tanswer\tprediction\tcategory\tl2-category\n"
    rows = [f"{i}\t{question_of_row_1 if i == 1 else 'q'}\ta\tb\tA\tA\tx\ty\n" for i in range(3)]
    return header + "".join(rows)


def test_score_mmbench_names_the_supported_formats(cli: Any, tmp_path: Path) -> None:
    comma = mmbench_rows("q").replace("\t", ",")
    csv_file = tmp_path / "preds.csv"
    csv_file.write_text(comma)
    line = cli("score", "mmbench", csv_file).error_line()
    assert "preds.csv: '.csv' files are not read; MMBench tables are a TSV (.tsv, VLMEvalKit)" in line
    disguised = tmp_path / "preds.tsv"
    disguised.write_text(comma)
    line = cli("score", "mmbench", disguised).error_line()
    assert "preds.tsv:1: the header has commas but no tab: this is not tab-separated" in line
    assert "missing" not in line


def test_a_cell_longer_than_a_read_block_is_read_and_a_huge_one_named(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mmgauge.benchmarks.mmbench import tsv_diagnostics

    long_question = tmp_path / "long.tsv"  # 3 MB in one row: longer than pyarrow's 1 MB block
    long_question.write_text(mmbench_rows("x" * (3 * 2**20)))
    result = cli("score", "mmbench", long_question, "--json")
    assert result.code == 0, result.err
    assert json.loads(json_tokens(result.out))["groups"] == {"0": 1, "1": 1, "2": 1}
    monkeypatch.setattr(tsv_diagnostics, "MAX_CELL_BYTES", 2 * 2**20)  # instead of writing a 64 MB file
    line = cli("score", "mmbench", long_question).error_line()
    assert "long.tsv:3, field 'question': a cell of 3 MB; cells over 2 MB are not read" in line
