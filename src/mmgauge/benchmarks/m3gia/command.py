"""``mmgauge score m3gia``: M3GIA's GIA score from per-type counts of correct answers (the benchmark's
`score_command` hook; the command line mounts it under `score`, and its old spelling `m3gia gia`).

``--json`` prints ``{"language": ..., "human_gia": ..., "scale": ..., "rows": [{"model", "gia",
"gia_normalised", "factors", ...}, ...]}`` with one row per input row, in order; ``model`` is the row's model
name where the file has a column of them (headed model or name, or the release workbook's unnamed last column:
`counts.py`), else null; the text output starts each row with that name, or else `row N`. ``gia`` is
always the official score (raw counts into the published model), the standardised scale adds
``gia_standardised``, ``factors_standardised`` and ``human_percentile`` (see `gia.py`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated

from mmgauge.core.params import Opt


class ScaleChoice(str, Enum):
    official = "official"
    standardised = "standardised"


def gia_command(
    language: Annotated[str, Opt("--language", help="en, zh, fr, sp/es, pt, ko or the full name.")],
    counts: Annotated[
        Path, Opt("--counts", help="CSV or XLSX with the 18 per-type counts, one row per model, and "
                  "optionally a model or name column (the release's MLLMs_acc_<lang>_score.xlsx is read as "
                  "its GIA_<Lang>.R reads it, rows named by its last column).")
    ],
    scale: Annotated[ScaleChoice, Opt("--scale")] = ScaleChoice.official,
    ignore: Annotated[
        list[str] | None, Opt("--ignore", help="Column to drop before scoring (repeatable), e.g. subid.")
    ] = None,
    human_stats: Annotated[
        Path | None,
        Opt("--human-stats", help="CSV column,mean,sd: raw human statistics for --scale standardised."),
    ] = None,
    as_json: Annotated[bool, Opt("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Compute the GIA (and normalised GIA) for each row of a counts file."""
    from mmgauge.benchmarks.m3gia.gia_scores import m3gia_gia_scores
    from mmgauge.benchmarks.m3gia.gia_text import json_bytes, text_bytes

    scores = m3gia_gia_scores(counts, language, scale=scale.value, human_stats=human_stats,
                              ignore=ignore or [])
    if as_json:
        _write_overlapped(json_bytes(scores))
        sys.stdout.write("\n")
        return
    _write_overlapped(text_bytes(scores))


def _write_overlapped(pieces: Iterator[memoryview]) -> None:
    """Write the pieces to stdout's bytes, each while the next one is made (a million rows are some 340 MB
    of JSON or 41 MB of text: writing them takes about as long as making them, and both release the GIL in
    large parts)."""
    from concurrent.futures import ThreadPoolExecutor

    out = getattr(sys.stdout, "buffer", None)
    if out is None:  # a text-only stream (some test harnesses)
        for piece in pieces:
            sys.stdout.write(str(piece, "utf-8"))
        return
    sys.stdout.flush()
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending = None
        for piece in pieces:
            if pending is not None:
                pending.result()  # the piece before is written (and its buffer may go) before the next
            pending = writer.submit(out.write, piece)
        if pending is not None:
            pending.result()
    out.flush()
