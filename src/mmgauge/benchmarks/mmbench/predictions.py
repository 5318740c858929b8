"""Scoring a predictions file (the dataset columns plus `prediction`) without any model but an optional judge.

A TSV scored without a judge is read straight into columns (`prediction_columns`); any other file, or one
that reader leaves, is read by `tsv.load_table` and put in the same column form (`predictions_of`): either way
the rules and the scoring are `prediction_columns.read_rules` and `score_read`, and only groups that need it
reach the judge in between.

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
from mmgauge.benchmarks.mmbench.prediction_columns import (
    Predictions,
    read_rules,
    score_prediction_columns,
    score_read,
)
from mmgauge.benchmarks.mmbench.resolve import Copy, resolve_copies, was_not_judged
from mmgauge.benchmarks.mmbench.scoring import MMBenchResult
from mmgauge.benchmarks.mmbench.scoring_columns import Coded
from mmgauge.benchmarks.mmbench.tsv import Table, load_table
from mmgauge.benchmarks.mmbench.vlmevalkit import LABEL_COLUMNS, PANDAS_NA_TEXTS, blank_na, group_sizes
from mmgauge.core.errors import UserError
from mmgauge.core.types import Extraction
from mmgauge.datasources.arrow_numpy import strings
from mmgauge.extraction.choice_columns import NO_OPTION_CODE
from mmgauge.extraction.choice_rules import METHODS, NO_OPTION
from mmgauge.extraction.judge import Judge
from mmgauge.extraction.methods import JUDGE_FAILED, UNRESOLVED


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


def predictions_of(table: Table) -> Predictions:
    """A table read by `tsv.load_table` in the column form scoring reads (`prediction_columns.score_read`)."""
    position = {letter: i for i, letter in enumerate(table.letters)}
    options = [table.options[:, j] for j in range(len(table.letters))]
    return Predictions(
        source=table.source, letters=table.letters, options=[strings(column.tolist()) for column in options],
        given=[column != "" for column in options],
        missing=[np.isin(column, sorted(PANDAS_NA_TEXTS)) for column in options],
        prediction=strings(table.text("prediction").tolist()),
        answer=np.array([position.get(answer, -1) for answer in table.answer.tolist()], dtype=np.int64),
        group=table.group, copy=table.copy,
        labels={column: strings(table.columns[column].tolist()) if column in table.columns else None
                for column in LABEL_COLUMNS},
    )


@dataclass
class ReadPredictions:
    """A predictions file's rows as scoring reads them: the letter code and the method per row (after the
    judge, if any), and how many copies each row's question group needs."""

    table: Table
    columns: Predictions
    letter: npt.NDArray[np.int64]
    method: npt.NDArray[np.int64]
    #: Unresolved copies the judge was never asked about (their group was already wrong).
    not_judged: npt.NDArray[np.bool_]
    n_copies: npt.NDArray[np.int64]
    circular: bool
    literal: bool

    @property
    def correct(self) -> npt.NDArray[np.bool_]:
        correct: npt.NDArray[np.bool_] = (self.columns.answer >= 0) & (self.letter == self.columns.answer)
        return correct

    def labels(self, column: str) -> npt.NDArray[np.object_]:
        """A label column's cells, missing-looking ones read as empty unless literal (as VLMEvalKit reads)."""
        values = self.table.text(column)
        return values if self.literal else blank_na(values)


async def read_predictions(
    table: Table, judge: Judge | None = None, *, random_fallback: bool = False, seed: int = 0,
    literal_options: bool = True, vlmevalkit_groups: bool = False,
) -> ReadPredictions:
    """Every row's answer read by the rules, then (if given) the judge, as `score_predictions` reads them."""
    columns = predictions_of(table)
    letter, method = read_rules(columns, literal=literal_options)
    not_judged = np.zeros(len(table), dtype=bool)
    if judge is not None or random_fallback:
        await _resolve(table, columns, letter, method, not_judged, judge, literal=literal_options,
                       random_fallback=random_fallback, seed=seed)
    circular = has_copies(table)
    if vlmevalkit_groups:
        n_copies = group_sizes(table.group)  # judged on the copies present
    else:
        # A file without circular copies cannot be scored circularly: each question is a group of one copy, so
        # circular equals vanilla (the result says so), rather than every group counting as missing copies.
        n_copies = table.n_options if circular else np.ones(len(table), dtype=np.int64)
    return ReadPredictions(table, columns, letter, method, not_judged, n_copies, circular, literal_options)


async def score_predictions(
    table: Table, judge: Judge | None = None, *, random_fallback: bool = False, seed: int = 0,
    literal_options: bool = True, vlmevalkit_groups: bool = False,
) -> MMBenchResult:
    read = await read_predictions(table, judge, random_fallback=random_fallback, seed=seed,
                                  literal_options=literal_options, vlmevalkit_groups=vlmevalkit_groups)
    return score_read(read.columns, read.letter, Coded(read.method, METHODS), read.n_copies,
                      literal=literal_options, seed=seed, short=vlmevalkit_groups and read.circular,
                      judged=judge is not None, not_judged=read.not_judged)


async def _resolve(table: Table, columns: Predictions, letter: npt.NDArray[np.int64],
                   method: npt.NDArray[np.int64], not_judged: npt.NDArray[np.bool_], judge: Judge | None, *,
                   literal: bool, random_fallback: bool, seed: int) -> None:
    """Judge (and, if asked, guess) in place, for the groups that hold an unresolved answer.

    `not_judged` is set for the unresolved copies the judge was never asked about (group already wrong).
    """
    groups = np.unique(table.group[method == METHODS.index(UNRESOLVED)])
    rows = np.flatnonzero(np.isin(table.group, groups))
    offered = np.column_stack(columns.offered(literal))
    hints, questions = table.text("hint"), table.text("question")
    if not literal:
        hints, questions = blank_na(hints), blank_na(questions)
    predictions = table.text("prediction")
    code = {name: i for i, name in enumerate(table.letters)} | {NO_OPTION: NO_OPTION_CODE}
    name = {number: letter for letter, number in code.items()}
    copies = []
    for row in rows.tolist():
        hint, question, text = hints[row], questions[row], str(predictions[row])
        found = name.get(int(letter[row]))
        copies.append(Copy(
            key=row, sample_id=str(table.index[row]), group=int(table.group[row]), copy=int(table.copy[row]),
            answer=str(table.answer[row]) or None,
            question=f"{hint}\n{question}" if hint else str(question),
            options={table.letters[j]: str(table.options[row, j]) for j in np.flatnonzero(offered[row])},
            text=text if literal or text not in PANDAS_NA_TEXTS else "nan",
            extraction=Extraction(answer=found, method=METHODS[int(method[row])]),
        ))
    changed = await resolve_copies(copies, judge, random_fallback=random_fallback, seed=seed)
    waiting = sum(extraction.method == JUDGE_FAILED for extraction in changed.values())
    if waiting:
        # Scored now, these answers would count wrong for a reason that is the judge's, not the model's.
        raise UserError(f"every judge call failed for {waiting} answers, so nothing was scored; check the "
                        "judge and run the same command again (answers it judged are in the response cache)",
                        file=table.source)
    for row, extraction in changed.items():
        letter[row] = -1 if extraction.answer is None else code[extraction.answer]
        method[row] = METHODS.index(extraction.method)
        not_judged[row] = was_not_judged(extraction)
