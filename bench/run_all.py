"""The performance suite (issues 14 and 25): every figure next to its floor, measured in the same run, as one
table and one JSON line.

- Scoring: `mmgauge score {mmbench,mme,m3gia,level}` on generated inputs in the layouts users have
  (`inputs.py`) of 10k, 100k and 1M rows (MME: results folders of 4, 42 and 1000 copies of the 2,374-question
  release: 9,496, 99,708 and 2,374,000 lines), against a floor reading the same file(s) with pyarrow's CSV
  reader, every column as text (`floors.py`). Targets (wall time, median of the pair ratios): mmbench <= 2x
  at 100k and 1M, level <= 2x everywhere, m3gia text <= 2x; `m3gia --json` <= 1.5x a floor that reads the
  file and writes as many bytes as the command printed; the rest is shown for reference. Peak memory
  <= 2x the floor's everywhere. Every result includes its intervals where the benchmark has them.
- MME at 2,374,000 lines against the MME authors' own `calculation.py` (`--mme-python`: an interpreter with
  numpy and scikit-learn; the tool is in /work/shared/reference/mme/eval_tool): at least 5x faster, and the
  same perception and cognition totals. Not measured without that interpreter.
- Start-up: `mmgauge --help` <= 0.25 s CPU, `mmgauge score mmbench` of a 10-row file <= 0.5 s CPU (medians).
- Report: `mmgauge report` of a 100,000-sample run against reading its records: at most 2x.

Every command runs as a whole process, alternating with its floor (floor, command, floor, command, ...);
each turn gives a ratio, and the table shows the median of those ratios, with wall time, CPU time (user +
sys of that child) and peak memory (its max RSS) side by side (`measure.py`). Children run from this
interpreter with a bytecode cache in the work folder (the machine's environment sets PYTHONDONTWRITEBYTECODE,
which would make every run compile mmgauge from source, as no installed package does).
Usage: python bench/run_all.py [--quick] [--repeat N] [--only scoring,official,startup,report]
  [--mme-python PATH] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from floors import HEADER, READ_AND_WRITE, READ_MME, READ_RECORDS, READ_TEXT, Line, row
from measure import Ratios, alternate, mmgauge_command, pair_ratios, run_once

PY = sys.executable
SIZES = {"10k": 10_000, "100k": 100_000, "1M": 1_000_000}
MME_COPIES = {"10k": 4, "100k": 42, "1M": 1000}
OFFICIAL = Path("/work/shared/reference/mme/eval_tool/calculation.py")
#: Wall-time targets by case and size (None: shown for reference).
TIME_LIMITS: dict[str, dict[str, float | None]] = {
    "mmbench": {"10k": None, "100k": 2.0, "1M": 2.0},
    "mme": {"10k": None, "100k": None, "1M": None},
    "m3gia --json": {size: 1.5 for size in SIZES},
    "m3gia (text)": {size: 2.0 for size in SIZES},
    "level": {size: 2.0 for size in SIZES},
}


def environment(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def _show(line: Line) -> Line:
    print(row(line), flush=True)
    return line


def scoring(work: Path, sizes: list[str], repeat: int) -> list[Line]:
    mmgauge = mmgauge_command()
    lines: list[Line] = []
    for size in sizes:
        rows = SIZES[size]
        mmbench, counts = work / f"mmbench-{size}.tsv", work / f"m3gia-{size}.csv"
        level, mme = work / f"level-{size}.csv", work / f"mme-{size}"
        if not mmbench.exists():
            generate("mmbench", mmbench, rows)
        if not mme.exists():
            generate("mme", mme, MME_COPIES[size])
        if not counts.exists():
            generate("m3gia", counts, rows)
        model = generate("level", level, rows) if not level.exists() else _level_model(level)
        m3gia = [*mmgauge, "score", "m3gia", "--language", "en", "--counts", str(counts)]
        read_counts = [PY, "-c", READ_TEXT, str(counts), ","]
        cases = {
            "mmbench": ([*mmgauge, "score", "mmbench", str(mmbench), "--json"],
                        [PY, "-c", READ_TEXT, str(mmbench), "tab"]),
            "mme": ([*mmgauge, "score", "mme", str(mme), "--json"], [PY, "-c", READ_MME, str(mme)]),
            "m3gia --json": ([*m3gia, "--json"], []),
            "m3gia (text)": (m3gia, read_counts),
            "level": ([*mmgauge, "score", "level", str(level), "--model", model, "--json"],
                      [PY, "-c", READ_TEXT, str(level), ","]),
        }
        for name, (command, floor) in cases.items():
            if not floor:  # its JSON is 8 times the file: the floor reads the file and writes as much
                written = run_once(command).stdout_bytes
                floor = [PY, "-c", READ_AND_WRITE, str(counts), ",", str(written)]
            found = alternate({"floor": floor, "command": command}, repeat)
            label = f"score {name} {size}"
            if name == "mme":
                label += f" ({MME_COPIES[size] * 2374:,} lines)"
            if name == "m3gia --json":
                label += f" (floor writes {found['command'].stdout_bytes / 1e6:.0f} MB)"
            lines.append(_show(Line(label, found["command"], found["floor"],
                                    pair_ratios(found["command"], found["floor"]), TIME_LIMITS[name][size])))
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


def official(work: Path, size: str, repeat: int, mme_python: Path | None) -> list[Line]:
    """`score mme` against the official tool, run as it is, on the same folder; the totals must agree."""
    lines = MME_COPIES[size] * 2374
    if mme_python is None or not mme_python.exists() or not OFFICIAL.exists():
        print(f"score mme {lines:,} lines vs official calculation.py: not measured (no --mme-python with "
              "numpy and scikit-learn, or no tool)", flush=True)
        return []
    folder = work / f"mme-{size}"
    if not folder.exists():
        generate("mme", folder, MME_COPIES[size])
    peer = [str(mme_python), str(OFFICIAL), "--results_dir", str(folder)]
    ours = [*mmgauge_command(), "score", "mme", str(folder), "--json"]
    found = alternate({"official": peer, "mmgauge": ours}, repeat)
    scores = json.loads(found["mmgauge"].stdout)
    totals = [float(line.split(":", 1)[1]) for line in found["official"].stdout.decode().splitlines()
              if line.startswith("total score:")]
    ours_totals = [scores["perception"], scores["cognition"]]
    if len(totals) != 2 or not all(math.isclose(a, b, rel_tol=1e-12)
                                   for a, b in zip(totals, ours_totals, strict=True)):
        raise SystemExit(f"the totals differ: official {totals}, mmgauge {scores['perception']}, "
                         f"{scores['cognition']}")
    pairs = list(zip(found["official"].runs, found["mmgauge"].runs, strict=True))
    # The ratio columns of this row are official / mmgauge for time (the speed-up) and mmgauge / official for
    # memory (as everywhere else: this command's peak over the other's).
    ratios = Ratios(statistics.median(p.seconds / o.seconds for p, o in pairs),
                    statistics.median(p.cpu / max(o.cpu, 1e-6) for p, o in pairs),
                    statistics.median(o.peak_mib / p.peak_mib for p, o in pairs))
    return [_show(Line(f"score mme {lines:,} lines: speed-up over calculation.py", found["mmgauge"],
                       found["official"], ratios, 5.0 if size == "1M" else None, kind="speedup",
                       memory_limit=None))]


def startup(work: Path, repeat: int) -> list[Line]:
    ten = work / "mmbench-10.tsv"
    generate("mmbench", ten, 12)
    with ten.open(encoding="utf-8", newline="") as handle:
        import csv

        kept = list(csv.reader(handle, delimiter="\t"))[:11]
    with ten.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, delimiter="\t", lineterminator="\n").writerows(kept)
    found = alternate({"pass": [PY, "-c", "pass"], "help": [*mmgauge_command(), "--help"],
                       "score": [*mmgauge_command(), "score", "mmbench", str(ten), "--json"]}, repeat)
    # The floor columns show `python -c pass` for reference; these targets are absolute CPU seconds.
    return [_show(Line(name, found[key], found["pass"], pair_ratios(found[key], found["pass"]), limit,
                       kind="cpu", memory_limit=None))
            for name, key, limit in (("mmgauge --help", "help", 0.25),
                                     ("mmgauge score mmbench, 10-row file", "score", 0.5))]


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
    return [_show(Line("mmgauge report, 100,000 samples", found["report"], found["floor"],
                       pair_ratios(found["report"], found["floor"]), 2.0))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10k rows only (and MME's peer at 100k)")
    parser.add_argument("--sizes", default=None, help="comma separated of 10k,100k,1M (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="turns of each command and its floor")
    parser.add_argument("--only", default="scoring,official,startup,report")
    parser.add_argument("--mme-python", type=Path, default=None,
                        help="a Python with numpy and scikit-learn, to run the official MME calculation.py")
    parser.add_argument("--work", type=Path, help="keep generated inputs here (default: a temporary folder)")
    args = parser.parse_args()
    parts = set(args.only.split(","))
    sizes = args.sizes.split(",") if args.sizes else ["10k"] if args.quick else list(SIZES)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        os.environ.update(environment(work))
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        print(HEADER, flush=True)
        lines: list[Line] = []
        if "scoring" in parts:
            lines += scoring(work, sizes, args.repeat)
        if "official" in parts:
            lines += official(work, "100k" if args.quick else "1M", args.repeat, args.mme_python)
        if "startup" in parts:
            lines += startup(work, 5 if args.quick else 15)
        if "report" in parts and not args.quick:
            lines += report(work, args.repeat)
    targets = [line for line in lines if line.limit is not None or line.memory_limit is not None]
    missed = [line.name for line in targets if not line.ok]
    print(f"{len(targets) - len(missed)} of {len(targets)} rows within target"
          + (f"; missed: {missed}" if missed else ""))
    print(json.dumps({"rows": [line.record() for line in lines], "missed": missed}))


if __name__ == "__main__":
    main()
