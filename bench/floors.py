"""The floors of the scoring bench, and its table rows.

A floor reads the same input with pyarrow's CSV reader and nothing else, the way a careful program that
does not know the file would: every column as text (a command cannot know a column is numeric without
reading it; type inference made the floor 1.19x slower and 1.70x bigger at 1M rows, flattering every
ratio), and, for the formats that allow them (CSV, VLMEvalKit TSV), quoted cells with line breaks
(`newlines_in_values`, which pyarrow turns off by default because it makes reading slower). The MME
results format allows neither quoting nor line breaks in a cell (the official tool splits lines on tabs),
so its floor reads it that way.
"""

from __future__ import annotations

from dataclasses import dataclass

from measure import Figure, Ratios

#: argv: PATH SEPARATOR ("tab" or ","). The header names the columns, each typed as text.
READ_TEXT = (
    "import sys, pyarrow as pa, pyarrow.csv as c\n"
    "path, sep = sys.argv[1], '\\t' if sys.argv[2] == 'tab' else sys.argv[2]\n"
    "with open(path, encoding='utf-8') as handle:\n"
    "    names = handle.readline().rstrip('\\n').split(sep)\n"
    "table = c.read_csv(path, parse_options=c.ParseOptions(delimiter=sep, newlines_in_values=True),\n"
    "                   convert_options=c.ConvertOptions(column_types={n: pa.string() for n in names}))\n"
)
#: argv: PATH SEPARATOR BYTES: the read, then BYTES written to stdout in pieces (what a command printed).
READ_AND_WRITE = READ_TEXT + (
    "piece, size = b'x' * (4 << 20), int(sys.argv[3])\n"
    "for start in range(0, size, len(piece)):\n"
    "    sys.stdout.buffer.write(piece[:size - start])\n"
)
#: argv: FOLDER. Every `<subtask>.txt` of an MME results folder, four text columns.
READ_MME = (
    "import sys, pathlib, pyarrow as pa, pyarrow.csv as c\n"
    "names = ['image', 'question', 'truth', 'answer']\n"
    "for f in sorted(pathlib.Path(sys.argv[1]).glob('*.txt')):\n"
    "    c.read_csv(f, read_options=c.ReadOptions(column_names=names),\n"
    "               parse_options=c.ParseOptions(delimiter='\\t', quote_char=False),\n"
    "               convert_options=c.ConvertOptions(column_types={n: pa.string() for n in names}))\n"
)
READ_RECORDS = (
    "import sys, json\n"
    "with open(sys.argv[1], 'rb') as handle:\n"
    "    records = [json.loads(line) for line in handle]"
)


@dataclass
class Line:
    """One row of the table: a command against its floor (or peer), and its targets.

    kind "ratio": wall-time ratio (median of pair ratios) <= limit, when there is a limit (None: shown for
    reference); "speedup": peer / command, median of pair ratios, >= limit; "cpu": the command's median CPU
    seconds <= limit (the floor, `python -c pass`, shown for reference). Peak memory <= memory_limit x the
    floor's wherever memory_limit is set.
    """

    name: str
    command: Figure
    floor: Figure
    ratios: Ratios
    limit: float | None
    kind: str = "ratio"
    memory_limit: float | None = 2.0

    @property
    def time_ok(self) -> bool:
        if self.limit is None:
            return True
        if self.kind == "cpu":
            return self.command.cpu <= self.limit
        if self.kind == "speedup":
            return self.ratios.wall >= self.limit
        return self.ratios.wall <= self.limit

    @property
    def memory_ok(self) -> bool:
        return self.memory_limit is None or self.ratios.memory <= self.memory_limit

    @property
    def ok(self) -> bool:
        return self.time_ok and self.memory_ok

    def target(self) -> str:
        parts = []
        if self.limit is not None:
            parts.append({"cpu": f"cpu<={self.limit:g}s", "speedup": f">={self.limit:g}x"}.get(
                self.kind, f"<={self.limit:g}x"))
        if self.memory_limit is not None:
            parts.append(f"mem<={self.memory_limit:g}x")
        return " ".join(parts)

    def verdict(self) -> str:
        if self.ok:
            return "ok" if self.limit is not None else "ok (time: for reference)"
        return "MISSED (" + ", ".join(
            what for what, good in (("time", self.time_ok), ("memory", self.memory_ok)) if not good) + ")"

    def record(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "limit": self.limit, "memory_limit": self.memory_limit,
                "ok": self.ok, "runs": len(self.command.runs),
                "wall_s": round(self.command.seconds, 4), "floor_wall_s": round(self.floor.seconds, 4),
                "cpu_s": round(self.command.cpu, 4), "floor_cpu_s": round(self.floor.cpu, 4),
                "peak_mib": round(self.command.peak_mib, 1), "floor_peak_mib": round(self.floor.peak_mib, 1),
                "wall_ratio": round(self.ratios.wall, 3), "cpu_ratio": round(self.ratios.cpu, 3),
                "memory_ratio": round(self.ratios.memory, 3)}


HEADER = (f"{'figure':<50} {'wall s':>7} {'floor':>7} {'ratio':>6} | {'cpu s':>7} {'floor':>7} "
          f"{'ratio':>6} | {'MiB':>6} {'floor':>6} {'ratio':>5} | target")


def row(line: Line) -> str:
    c, f, r = line.command, line.floor, line.ratios
    return (f"{line.name:<50} {c.seconds:7.3f} {f.seconds:7.3f} {r.wall:6.2f} | {c.cpu:7.3f} {f.cpu:7.3f} "
            f"{r.cpu:6.2f} | {c.peak_mib:6.0f} {f.peak_mib:6.0f} {r.memory:5.2f} | {line.target():<20} "
            f"{line.verdict()}")
