"""Scoring a VLMEvalKit predictions file for MMStar (`<model>_MMStar.xlsx`, or .tsv/.csv): the dataset's
columns (index, question, A-D, answer, category, l2-category; no image) plus `prediction`.

The file is read as VLMEvalKit's `evaluate` reads it: with pandas' default missing values (an option cell
pandas reads as missing is no option, a missing prediction is the text "nan"), column names lower-cased except
the option letters, each prediction stripped. Answers are read by the shared single-choice matcher, then by
the judge if one is given; with none, unread answers count wrong and are counted (VLMEvalKit's
`exact_matching`). This is what a future `mmgauge score mmstar FILE` calls.
"""

from __future__ import annotations

import asyncio
import string
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from mmgauge.benchmarks.mmstar.resolve import resolve_answer
from mmgauge.benchmarks.mmstar.result import MMStarResult, Outcome, score_outcomes
from mmgauge.core.errors import UserError
from mmgauge.extraction.choice import match_choice

if TYPE_CHECKING:
    import pandas as pd

    from mmgauge.extraction.judge import Judge

NEEDED: Final = ("index", "prediction", "answer", "category")
#: The axis column: VLMEvalKit's name, and the Hugging Face dataset's.
AXIS_COLUMNS: Final = ("l2-category", "l2_category")
#: Judge questions in flight at once.
JUDGE_CONCURRENCY: Final = 8


def read_predictions(path: Path) -> pd.DataFrame:
    """The predictions table as VLMEvalKit's `load` gives it to `evaluate` (see the module docstring)."""
    import pandas as pd

    if not path.is_file():
        raise UserError("predictions file not found", file=str(path))
    suffix = path.suffix.lower()
    try:
        if suffix in (".xlsx", ".xls"):
            frame = pd.read_excel(path)
        else:
            frame = pd.read_csv(path, sep="," if suffix == ".csv" else "\t")
    except Exception as error:  # pandas and openpyxl raise many unrelated types for unreadable files
        raise UserError(f"cannot read predictions: {error}".splitlines()[0], file=str(path)) from None
    frame.columns = [c if c in string.ascii_uppercase else str(c).lower() for c in frame.columns]
    for column in NEEDED:
        if column not in frame.columns:
            raise UserError(f"missing column '{column}' (a VLMEvalKit MMStar predictions file has the "
                            "dataset columns and 'prediction')", file=str(path), field=column)
    if not any(c in frame.columns for c in AXIS_COLUMNS):
        raise UserError("missing column 'l2-category'", file=str(path), field="l2-category")
    return frame


def score_predictions(path: str | Path, judge: Judge | None = None, *, random_fallback: bool = False,
                      seed: int = 0) -> MMStarResult:
    """The MMStar result of a VLMEvalKit predictions file: exact matching, then `judge` if given."""
    file = Path(path)
    frame = read_predictions(file)
    axis = next(c for c in AXIS_COLUMNS if c in frame.columns)
    letters = [c for c in string.ascii_uppercase if c in frame.columns]
    rows = [{str(key): value for key, value in row.items()} for row in frame.to_dict("records")]
    outcomes = asyncio.run(_outcomes(file, rows, letters, axis, judge, random_fallback, seed))
    return score_outcomes(outcomes)


async def _outcomes(file: Path, rows: list[dict[str, Any]], letters: list[str], axis: str,
                    judge: Judge | None, random_fallback: bool, seed: int) -> list[Outcome]:
    import pandas as pd

    gate = asyncio.Semaphore(JUDGE_CONCURRENCY)

    async def one(line: int, row: dict[str, Any]) -> Outcome:
        options = {c: str(row[c]) for c in letters if not pd.isna(row[c])}
        answer = None if pd.isna(row["answer"]) else str(row["answer"]).strip()
        if answer is not None and answer not in options:
            raise UserError(f"answer '{answer}' is not one of the options {', '.join(options)}",
                            file=str(file), line=line, field="answer")
        # VLMEvalKit: str(prediction) (a missing one is "nan"), stripped before matching.
        text = str(row["prediction"]).strip()
        found = match_choice(text, options)
        hint = "" if pd.isna(row.get("hint")) else str(row.get("hint"))
        question = "" if pd.isna(row.get("question")) else str(row.get("question"))
        asked = f"{hint}\n{question}" if hint else question
        async with gate:
            found = await resolve_answer(found, str(row["index"]), asked, options, text, judge,
                                         random_fallback=random_fallback, seed=seed,
                                         has_key=answer is not None)
        return Outcome(category=str(row["category"]), l2_category=str(row[axis]), answer=answer,
                       extraction=found)

    # Rows are lines 2.. of a TSV and of the sheet (the header is line 1).
    return list(await asyncio.gather(*(one(i + 2, row) for i, row in enumerate(rows))))
