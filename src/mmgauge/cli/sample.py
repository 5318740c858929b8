"""`mmgauge sample BENCH --out PATH`: write a benchmark's built-in sample data at PATH, so that
`mmgauge run --bench BENCH --data PATH` reads it."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import click

from mmgauge.core.errors import UserError
from mmgauge.core.params import Arg, Opt

OUT_HELP = (
    "Where to write the sample, and what `run --data` then takes: a folder (mme, m3gia) or a file "
    "(mmbench: a .tsv). An existing folder is written into (files of the same name are replaced)."
)


def place(written: Path, out: Path) -> Path:
    """Move what a benchmark's `sample_data` wrote (a folder or one file) to `out`; returns the data path.

    A single file goes to `out` itself, unless `out` is an existing folder: then it goes inside it, and the
    path returned (and printed) is that file."""
    if written.is_dir():
        if out.exists() and not out.is_dir():
            raise UserError("exists and is not a folder; the sample is a folder", file=str(out))
        shutil.copytree(written, out, dirs_exist_ok=True)
        return out
    target = out / written.name if out.is_dir() else out
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(written, target)
    return target


def sample(
    bench: Annotated[str, Arg(help="Benchmark name (see `mmgauge list`).")],
    out: Annotated[Path, Opt("--out", help=OUT_HELP)],
) -> None:
    """Write the built-in, deterministically generated sample data of a benchmark."""
    from mmgauge.benchmarks.registry import get_benchmark

    benchmark = get_benchmark(bench)
    parent = out.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".mmgauge-sample-", dir=parent) as staging:
        path = place(benchmark.sample_data(Path(staging)), out)
    click.echo(str(path))
    if path != out:
        click.echo(f"note: {out} is a folder, so the sample file is inside it: run with --data {path}",
                   err=True)
