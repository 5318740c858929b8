"""Scoring a predictions file (the dataset columns plus `prediction`) without any model but an optional judge.

This is the path of `mmgauge score mmbench`, which must score 100,000 rows in well under 2.4 s: the table is
checked column-wise, the rules run in one tight loop, and only groups that need it reach the judge.

`score_prediction_file` scores a file as VLMEvalKit scores it (see `vlmevalkit.py`): groups of whatever copies
the file holds, options pandas reads as missing left out (`literal_options=True` keeps them as text). The
lower-level `load_predictions` / `score_predictions` keep their stricter defaults: every copy of a circular
question present and each a rotation of the first, options read literally.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from mmgauge.benchmarks.mmbench.circular import base_positions, check_copies, has_copies
from mmgauge.benchmarks.mmbench.prediction_columns import score_prediction_columns
from mmgauge.benchmarks.mmbench.resolve import Copy, resolve_copies, was_not_judged
from mmgauge.benchmarks.mmbench.tsv import Table, load_table
from mmgauge.benchmarks.mmbench.vlmevalkit import Choices, choices, group_sizes
from mmgauge.core.errors import UserError
from mmgauge.core.types import Extraction
from mmgauge.extraction.choice import match_letter
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import FAILURE, JUDGE_FAILED, UNRESOLVED
from mmgauge.scoring.mmbench import TEST_ANSWERS, MMBenchResult, score_columns


def load_predictions(path: Path, *, vlmevalkit_groups: bool = False) -> Table:
    """The checked table. By default a file holding circular copies must hold them all, each its first
    copy rotated; with `vlmevalkit_groups` a group is whatever copies the file holds (each needs its first
    copy), read row by row as VLMEvalKit reads them. `category` is optional either way (without it there is
    no breakdown by category).
    """
    table = load_table(path, need_prediction=True, need_category=False)
    if vlmevalkit_groups:
        base_positions(table)
    else:
        check_copies(table, complete=has_copies(table))
    return table


async def score_prediction_file(
    path: Path, judge: Judge | None = None, *, literal_options: bool = False, random_fallback: bool = False,
    seed: int = 0,
) -> MMBenchResult:
    """A predictions file (VLMEvalKit's or lmms-eval's xlsx/TSV, lmms-eval's sample log) scored as VLMEvalKit
    scores it."""
    if judge is None and not random_fallback:
        fast = score_prediction_columns(path, literal_options=literal_options, seed=seed)
        if fast is not None:
            return fast
    table = load_predictions(path, vlmevalkit_groups=True)
    return await score_predictions(table, judge, random_fallback=random_fallback, seed=seed,
                                   literal_options=literal_options, vlmevalkit_groups=True)


@dataclass
class ReadPredictions:
    """A predictions file's rows as scoring reads them: the letter and the deciding method per row (after the
    judge, if any), and how many copies each row's question group needs."""

    table: Table
    seen: Choices
    letters: list[str | None]
    methods: list[str]
    #: Unresolved copies the judge was never asked about (their group was already wrong).
    not_judged: npt.NDArray[np.bool_]
    n_copies: npt.NDArray[np.int64]
    circular: bool

    @property
    def correct(self) -> npt.NDArray[np.bool_]:
        answer = self.table.answer
        extracted = np.array(self.letters, dtype=object)
        correct: npt.NDArray[np.bool_] = (answer != "") & (extracted == answer)
        return correct


async def read_predictions(
    table: Table, judge: Judge | None = None, *, random_fallback: bool = False, seed: int = 0,
    literal_options: bool = True, vlmevalkit_groups: bool = False,
) -> ReadPredictions:
    """Every row's answer read by the rules, then (if given) the judge, as `score_predictions` reads them."""
    seen = choices(table, literal=literal_options)
    letters: list[str | None] = []
    methods: list[str] = []
    for text, row_letters, row_texts in zip(seen.predictions, seen.letters, seen.texts, strict=True):
        letter, method = match_letter(text, row_letters, row_texts)
        letters.append(letter)
        methods.append(method)
    not_judged = np.zeros(len(table), dtype=bool)
    if judge is not None or random_fallback:
        await _resolve(table, seen, letters, methods, not_judged, judge, random_fallback=random_fallback,
                       seed=seed)
    waiting = methods.count(JUDGE_FAILED)
    if waiting:
        # Scored now, these answers would count wrong for a reason that is the judge's, not the model's.
        raise UserError(f"every judge call failed for {waiting} answers, so nothing was scored; check the "
                        "judge and run the same command again (answers it judged are in the response cache)",
                        file=table.source)
    circular = has_copies(table)
    if vlmevalkit_groups:
        n_copies = group_sizes(table.group)  # judged on the copies present
    else:
        # A file without circular copies cannot be scored circularly: each question is a group of one copy, so
        # circular equals vanilla (the result says so), rather than every group counting as missing copies.
        n_copies = table.n_options if circular else np.ones(len(table), dtype=np.int64)
    return ReadPredictions(table, seen, letters, methods, not_judged, n_copies, circular)


async def score_predictions(
    table: Table, judge: Judge | None = None, *, random_fallback: bool = False, seed: int = 0,
    literal_options: bool = True, vlmevalkit_groups: bool = False,
) -> MMBenchResult:
    read = await read_predictions(table, judge, random_fallback=random_fallback, seed=seed,
                                  literal_options=literal_options, vlmevalkit_groups=vlmevalkit_groups)
    seen = read.seen
    answer = table.answer
    result = score_columns(
        group=table.group, copy=table.copy, n_copies=read.n_copies,
        correct=read.correct, method=read.methods, has_answer=answer != "",
        category=seen.labels["category"], l2=seen.labels["l2-category"], split=seen.labels["split"],
        judged=judge is not None, seed=seed, not_judged=read.not_judged,
    )
    if result.overall is None:
        raise UserError(f"the file has no answer key (a test split); {TEST_ANSWERS}", file=table.source,
                        field="answer")
    _notes(result, table, seen, literal_options=literal_options, short=vlmevalkit_groups and read.circular)
    return result


def _notes(result: MMBenchResult, table: Table, seen: Choices, *, literal_options: bool, short: bool) -> None:
    """Count what the toolkits read differently: missing-looking option text, groups short of copies."""
    groups = np.unique(table.group[seen.missing_like])
    result.na_text_questions = len(groups)
    result.na_text_examples = [int(g) for g in groups[:5]]
    result.na_text_dropped = not literal_options
    if short:
        sizes = group_sizes(table.group)
        options = np.array([len(letters) for letters in seen.letters], dtype=np.int64)
        first = table.copy == 0
        result.short_groups = int(np.count_nonzero(first & (sizes < options)))


async def _resolve(table: Table, seen: Choices, letters: list[str | None], methods: list[str],
                   not_judged: npt.NDArray[np.bool_], judge: Judge | None, *,
                   random_fallback: bool, seed: int) -> None:
    """Judge (and, if asked, guess) in place, for the groups that hold an unresolved answer.

    `not_judged` is set for the unresolved copies the judge was never asked about (group already wrong).
    """
    unresolved = np.array(methods, dtype=object) == UNRESOLVED
    groups = np.unique(table.group[unresolved])
    rows = np.flatnonzero(np.isin(table.group, groups))
    copies = []
    for row in rows.tolist():
        hint, question = seen.hints[row], seen.questions[row]
        copies.append(Copy(
            key=row, sample_id=str(table.index[row]), group=int(table.group[row]), copy=int(table.copy[row]),
            answer=str(table.answer[row]) or None,
            question=f"{hint}\n{question}" if hint else str(question),
            options=dict(zip(seen.letters[row], seen.texts[row], strict=True)),
            text=seen.predictions[row],
            extraction=Extraction(answer=letters[row], method=methods[row]) if methods[row] != FAILURE
            else Extraction(answer=None, method=FAILURE),
        ))
    changed = await resolve_copies(copies, judge, random_fallback=random_fallback, seed=seed)
    for row, extraction in changed.items():
        letters[row] = extraction.answer
        methods[row] = extraction.method
        not_judged[row] = was_not_judged(extraction)
