"""`compare` across sources: MMBench runs against their predictions xlsx (as `score mmbench` reads it), all
three benchmarks of full sample runs, a benchmark without its own comparer, and what is not comparable."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from mmgauge.api.compare import compare
from mmgauge.benchmarks.mmbench.scores import score_mmbench
from mmgauge.core.errors import UserError
from mmgauge.testing.server import FakeOpenAIServer


def _letter(text: str) -> str:
    """A model that answers a letter picked by the question text: some copies right, some wrong."""
    return "ABCD"[zlib.crc32(text.encode()) % 4]


@pytest.fixture(scope="module")
def sample_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from mmgauge.cli.main import main

    base = tmp_path_factory.mktemp("sample-runs")
    out: dict[str, Path] = {}
    with FakeOpenAIServer(answer=_letter) as server:
        for name, model in (("letters", f"openai:m@{server.base_url}"), ("yes", "mock:Yes"), ("a", "mock:A")):
            try:
                main(["run", "--model", model, "--out", str(base / name), "--no-cache"])
            except SystemExit as stop:
                assert not stop.code
            out[name] = base / name
    return out


def _mmbench_data(run: Path) -> Path:
    manifest = json.loads((run / "manifest.json").read_text())
    return Path(next(d["data"] for d in manifest["datasets"] if d["benchmark"] == "mmbench"))


def test_a_predictions_xlsx_pairs_with_the_run_it_came_from(sample_runs: dict[str, Path], cli: Any,
                                                            tmp_path: Path) -> None:
    run = sample_runs["letters"]
    xlsx = tmp_path / "letters.xlsx"
    assert cli("export", "mmbench", _mmbench_data(run), run, "--out", xlsx).code == 0
    same = compare([run, xlsx])
    (pair,) = same.pairs
    assert pair.benchmark == "mmbench" and same.runs[1].kind == "MMBench predictions"
    assert pair.items == 10 and pair.only_a == pair.only_b == 0
    headline = {r.metric: r for r in pair.rows if r.breakdown == "overall"}
    assert (headline["circular"].a_only, headline["circular"].b_only) == (0, 0)
    # The file's accuracies are what `score mmbench` gives it.
    scored = score_mmbench(xlsx)
    assert headline["circular"].b == pytest.approx(100 * (scored.overall or 0))
    assert headline["vanilla"].b == pytest.approx(100 * (scored.vanilla or 0))
    # Against another run: the same numbers whether that run is a folder or its xlsx.
    by_run = compare([sample_runs["a"], run]).pairs
    by_file = compare([sample_runs["a"], xlsx]).pairs
    mmbench = next(p for p in by_run if p.benchmark == "mmbench")
    assert [(r.breakdown, r.metric, r.p_value, r.low, r.high) for r in mmbench.rows] == [
        (r.breakdown, r.metric, r.p_value, r.low, r.high) for r in by_file[0].rows]


def test_the_benchmark_of_a_table_is_read_from_its_header_or_given(sample_runs: dict[str, Path],
                                                                   tmp_path: Path) -> None:
    table = tmp_path / "odd.tsv"
    table.write_text("id\tresponse\n1\tA\n")
    with pytest.raises(UserError, match="cannot tell which benchmark"):
        compare([sample_runs["a"], table])
    with pytest.raises(UserError, match=r"odd\.tsv"):
        compare([sample_runs["a"], f"mmbench={table}"])


def test_full_sample_runs_compare_on_every_benchmark(sample_runs: dict[str, Path]) -> None:
    result = compare([sample_runs["letters"], sample_runs["yes"]], resamples=300)
    assert [p.benchmark for p in result.pairs] == ["mme", "mmbench", "m3gia", "mmstar", "pope"]
    m3gia = next(p for p in result.pairs if p.benchmark == "m3gia")
    breakdowns = {r.breakdown for r in m3gia.rows}
    assert {"mean of languages", "english", "english · Algebra"} <= breakdowns
    mmbench = next(p for p in result.pairs if p.benchmark == "mmbench")
    assert {"overall", "L2 CP", "mean of L2 abilities"} <= {r.breakdown for r in mmbench.rows}
    for pair in result.pairs:
        for row in pair.rows:
            assert row.low <= row.difference <= row.high and row.low < row.high, row
            assert 0.0 <= row.p_value <= 1.0 and row.n > 0


def test_a_benchmark_without_its_own_comparer_compares_its_verdicts(toy: None, tmp_path: Path) -> None:
    import mmgauge

    mmgauge.evaluate("mock:yes", benchmarks=["toy"], out=tmp_path / "yes", cache=False)
    mmgauge.evaluate("mock:no", benchmarks=["toy"], out=tmp_path / "no", cache=False)
    (pair,) = compare([tmp_path / "yes", tmp_path / "no"]).pairs
    (row,) = pair.rows
    assert (row.benchmark, row.metric, row.test) == ("toy", "accuracy", "mcnemar-exact")
    assert row.a_only is not None and row.b_only is not None and row.a_only + row.b_only == row.n


def test_runs_without_a_shared_benchmark(toy: None, sample_runs: dict[str, Path], tmp_path: Path) -> None:
    import mmgauge

    mmgauge.evaluate("mock:yes", benchmarks=["toy"], out=tmp_path / "toy", cache=False)
    with pytest.raises(UserError, match=r"have no benchmark in common"):
        compare([sample_runs["a"], tmp_path / "toy"])


def test_an_mme_answers_table_is_read_like_score_mme(sample_runs: dict[str, Path], cli: Any,
                                                     tmp_path: Path) -> None:
    official = tmp_path / "official"
    assert cli("export", "mme", sample_runs["yes"], "--official", official).code == 0
    rows = []
    for path in sorted(official.glob("*.txt")):
        for line in path.read_text().splitlines():
            image, question, truth, prediction = line.split("\t")
            rows.append({"index": len(rows), "category": path.stem, "image_path": image, "question": question,
                         "answer": truth, "prediction": prediction})
    table = tmp_path / "answers.xlsx"
    pd.DataFrame(rows).to_excel(table, index=False)
    result = compare([sample_runs["yes"], table])
    assert result.runs[1].kind == "MME answers table"
    assert all(row.difference == 0 for row in result.pairs[0].rows)
