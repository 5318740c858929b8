"""The performance suite of issue 14: every figure next to its floor, measured in the same run, as one table
and one JSON line.

- Scoring: `mmgauge score {mmbench,mme,m3gia,level} ... --json` on generated inputs (`inputs.py`) of 10k, 100k
  and 1M rows (MME: results folders of 4, 42 and 1000 copies of the 2,374-question release: 9,496, 99,708 and
  2,374,000 lines), against `python -c` reading the same file(s) with pyarrow's CSV reader. Wall time and peak
  memory (max RSS) of the whole process, medians of alternating runs; target: both at most 2x the floor.
  Every result includes its intervals where the benchmark has them (MME: Clopper-Pearson and the image
  bootstrap; MMBench: Clopper-Pearson). M3GIA prints a row of scores per input row, so it is measured in
  both of its outputs: the text (the command's default, about the file's size) and the JSON (about 8 times
  the file); the JSON's time is also shown against a second floor, reading the file and writing as many
  bytes, for reference.
- MME at 2,374,000 lines against `mme_official.py`, a re-implementation of the MME authors' calculation.py
  (labelled as such there): at least 5x faster, and the same perception and cognition totals.
- Start-up: `mmgauge --help` under 0.15 s, `mmgauge score mmbench` of a 10-row file under 0.35 s (medians).
- Report: `mmgauge report` of a 100,000-sample run (mock model, `report.py`'s data) against reading its
  records (every line of scored.jsonl parsed as JSON): at most 2x.

Children run from this interpreter with a bytecode cache in the work folder (the machine's environment sets
PYTHONDONTWRITEBYTECODE, which would make every run compile mmgauge from source, as no installed package
does). Usage: python bench/run_all.py [--quick] [--repeat N] [--only scoring,official,startup,report]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import alternate, mmgauge_command, run_once

PY = sys.executable
READ_TSV = ("import sys, pyarrow.csv as c; "
            "c.read_csv(sys.argv[1], parse_options=c.ParseOptions(delimiter='\\t'))")
READ_CSV = "import sys, pyarrow.csv as c; c.read_csv(sys.argv[1])"
READ_MME = (
    "import sys, pathlib, pyarrow.csv as c\n"
    "for f in sorted(pathlib.Path(sys.argv[1]).glob('*.txt')):\n"
    "    c.read_csv(f, read_options=c.ReadOptions(column_names=['image', 'question', 'truth', 'answer']),\n"
    "               parse_options=c.ParseOptions(delimiter='\\t', quote_char=False))"
)
#: The floor reading a file and writing (to stdout, in pieces) as many bytes as a command printed.
READ_AND_WRITE = (
    "import sys, pyarrow.csv as c\n"
    "c.read_csv(sys.argv[1])\n"
    "piece, size = b'x' * (4 << 20), int(sys.argv[2])\n"
    "for start in range(0, size, len(piece)):\n"
    "    sys.stdout.buffer.write(piece[:size - start])"
)
READ_RECORDS = (
    "import sys, json\n"
    "with open(sys.argv[1], 'rb') as handle:\n"
    "    records = [json.loads(line) for line in handle]"
)
SIZES = {"10k": 10_000, "100k": 100_000, "1M": 1_000_000}
MME_COPIES = {"10k": 4, "100k": 42, "1M": 1000}


@dataclass
class Line:
    """One row of the table: a figure, its floor, and the target ratio (or an absolute limit)."""

    name: str
    value: float
    floor: float | None
    limit: float
    unit: str = "s"
    #: "ratio": value / floor <= limit; "speedup": floor / value >= limit; "abs": value <= limit; "info": a
    #: ratio shown for reference, no target of its own.
    kind: str = "ratio"

    @property
    def ratio(self) -> float | None:
        if self.floor is None or self.kind == "abs":
            return None
        return self.floor / self.value if self.kind == "speedup" else self.value / self.floor

    @property
    def ok(self) -> bool:
        if self.kind == "info":
            return True
        if self.kind == "abs":
            return self.value <= self.limit
        ratio = self.ratio
        assert ratio is not None
        return ratio >= self.limit if self.kind == "speedup" else ratio <= self.limit


def environment(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def scoring(work: Path, sizes: list[str], repeat: int) -> list[Line]:
    mmgauge = mmgauge_command()
    lines: list[Line] = []
    for size in sizes:
        rows = SIZES[size]
        mmbench, counts = work / f"mmbench-{size}.tsv", work / f"m3gia-{size}.csv"
        level, mme = work / f"level-{size}.csv", work / f"mme-{size}"
        if not mmbench.exists():
            generate("mmbench", mmbench, rows)
            generate("mme", mme, MME_COPIES[size])
            generate("m3gia", counts, rows)
        model = generate("level", level, rows) if not level.exists() else _level_model(level)
        m3gia = [*mmgauge, "score", "m3gia", "--language", "en", "--counts", str(counts)]
        cases = {
            "mmbench": ([*mmgauge, "score", "mmbench", str(mmbench), "--json"],
                        [PY, "-c", READ_TSV, str(mmbench)]),
            "mme": ([*mmgauge, "score", "mme", str(mme), "--json"], [PY, "-c", READ_MME, str(mme)]),
            "m3gia": ([*m3gia, "--json"], [PY, "-c", READ_CSV, str(counts)]),
            "m3gia (text)": (m3gia, [PY, "-c", READ_CSV, str(counts)]),
            "level": ([*mmgauge, "score", "level", str(level), "--model", model, "--json"],
                      [PY, "-c", READ_CSV, str(level)]),
        }
        for name, (command, floor) in cases.items():
            commands = {"floor": floor, "command": command}
            if name == "m3gia":  # its JSON is 8 times the file: reading the file and writing as much
                written = run_once(command).stdout_bytes
                commands["bound"] = [PY, "-c", READ_AND_WRITE, str(counts), str(written)]
            found = alternate(commands, repeat)
            ours, read = found["command"], found["floor"]
            label = f"score {name} {size}"
            if name == "mme":
                label += f" ({MME_COPIES[size] * 2374:,} lines)"
            lines.append(Line(f"{label}: time", ours.seconds, read.seconds, 2.0))
            lines.append(Line(f"{label}: peak memory", ours.peak_mib, read.peak_mib, 2.0, unit="MiB"))
            if "bound" in found:
                megabytes = found["command"].stdout_bytes / 1e6
                lines.append(Line(f"{label}: time vs reading + writing {megabytes:.0f} MB", ours.seconds,
                                  found["bound"].seconds, 2.0, kind="info"))
            for line in lines[-3 if "bound" in found else -2:]:
                print(_row(line), flush=True)
    return lines


def generate(kind: str, path: Path, rows: int) -> str:
    """Write an input in a child process (see `inputs.main`); what it prints (the level model's name)."""
    script = Path(__file__).resolve().parent / "inputs.py"
    done = subprocess.run([PY, str(script), kind, str(path), str(rows)], check=True, capture_output=True,
                          text=True)
    return done.stdout.strip()


def _level_model(path: Path) -> str:
    rows = sum(1 for _ in path.open(encoding="utf-8")) - 1
    return f"model-{-(-rows // 699) // 2}"


def official(work: Path, repeat: int) -> list[Line]:
    folder = work / "mme-1M"
    if not folder.exists():
        generate("mme", folder, MME_COPIES["1M"])
    baseline = [PY, str(Path(__file__).resolve().parent / "mme_official.py"), "--results_dir", str(folder)]
    ours = [*mmgauge_command(), "score", "mme", str(folder), "--json"]
    found = alternate({"official": baseline, "mmgauge": ours}, repeat)
    scores = json.loads(found["mmgauge"].stdout)
    totals = [float(line.split(":", 1)[1]) for line in found["official"].stdout.decode().splitlines()
              if line.startswith("total score:")]
    if totals != [scores["perception"], scores["cognition"]]:
        raise SystemExit(f"the totals differ: official {totals}, mmgauge {scores['perception']}, "
                         f"{scores['cognition']}")
    line = Line("score mme 2,374,000 lines vs official calculation.py (speed-up)", found["mmgauge"].seconds,
                found["official"].seconds, 5.0, kind="speedup")
    print(_row(line), flush=True)
    return [line]


def startup(work: Path, repeat: int) -> list[Line]:
    ten = work / "mmbench-10.tsv"
    generate("mmbench", ten, 12)
    ten.write_text("".join(ten.read_text(encoding="utf-8").splitlines(keepends=True)[:11]), encoding="utf-8")
    found = alternate({"pass": [PY, "-c", "pass"], "help": [*mmgauge_command(), "--help"],
                       "score": [*mmgauge_command(), "score", "mmbench", str(ten), "--json"]}, repeat)
    # The floor column shows `python -c pass` for reference; these targets are absolute.
    lines = [Line("mmgauge --help", found["help"].seconds, found["pass"].seconds, 0.15, kind="abs"),
             Line("mmgauge score mmbench, 10-row file", found["score"].seconds, found["pass"].seconds, 0.35,
                  kind="abs")]
    for line in lines:
        print(_row(line), flush=True)
    return lines


def report(work: Path, repeat: int) -> list[Line]:
    run = work / "report-run"
    if not (run / "results.json").exists():
        data = work / "report-mmbench.tsv"
        write_data = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]); "
                      "from report import write_tsv; write_tsv(Path(sys.argv[1]), 25_000, 1_000)")
        subprocess.run([PY, "-c", write_data, str(data), str(Path(__file__).resolve().parent)], check=True)
        mock_run = [*mmgauge_command(), "run", "--model", "mock:The answer is B", "--bench", "mmbench",
                    "--data", str(data), "--out", str(run), "--no-cache"]
        subprocess.run(mock_run, check=True, capture_output=True)
    command = [*mmgauge_command(), "report", str(run), "--out", str(work / "report.html")]
    floor = [PY, "-c", READ_RECORDS, str(run / "scored.jsonl")]
    found = alternate({"floor": floor, "report": command}, repeat)
    line = Line("mmgauge report, 100,000 samples", found["report"].seconds, found["floor"].seconds, 2.0)
    print(_row(line), flush=True)
    return [line]


def _row(line: Line) -> str:
    floor = "" if line.floor is None else f"{line.floor:9.3f}"
    ratio = "" if line.ratio is None else f"{line.ratio:6.2f}"
    limit = f"{'<=' if line.kind != 'speedup' else '>='} {line.limit:g}{'' if line.kind != 'abs' else ' s'}"
    verdict = "ok" if line.ok else "MISSED"
    if line.kind == "info":
        limit, verdict = "", "(for reference)"
    return f"{line.name:<62} {line.value:9.3f} {line.unit:<3} {floor:>9} {ratio:>6}  {limit:<8} {verdict}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10k and 100k rows only, fewer repeats")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each scoring command (alternating)")
    parser.add_argument("--only", default="scoring,official,startup,report")
    parser.add_argument("--work", type=Path, help="keep generated inputs here (default: a temporary folder)")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    sizes = ["10k", "100k"] if args.quick else list(SIZES)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        os.environ.update(environment(work))
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"{'figure':<62} {'mmgauge':>9}     {'floor':>9} {'ratio':>6}  target", flush=True)
        lines: list[Line] = []
        if "scoring" in parts:
            lines += scoring(work, sizes, args.repeat)
        if "official" in parts and not args.quick:
            lines += official(work, max(1, args.repeat - 1))
        if "startup" in parts:
            lines += startup(work, 5 if args.quick else 15)
        if "report" in parts:
            lines += report(work, args.repeat)
    targets = [line for line in lines if line.kind != "info"]
    missed = [line.name for line in targets if not line.ok]
    print(f"{len(targets) - len(missed)} of {len(targets)} figures within target"
          + (f"; missed: {missed}" if missed else ""))
    print(json.dumps({"figures": [_record(line) for line in lines], "missed": missed}))


def _record(line: Line) -> dict[str, object]:
    return {"name": line.name, "value": round(line.value, 4), "unit": line.unit,
            "floor": None if line.floor is None else round(line.floor, 4),
            "ratio": None if line.ratio is None else round(line.ratio, 3),
            "limit": None if line.kind == "info" else line.limit,
            "kind": line.kind, "ok": line.ok}


if __name__ == "__main__":
    main()
