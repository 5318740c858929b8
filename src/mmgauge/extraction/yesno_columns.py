"""The MME tool's yes/no rule (`official`, described in `yesno.py`): the one implementation, on columns. An
official results folder of millions of lines is a column per file (`official_column`); a batch of records,
or one answer, a short column of Python strings (`official_texts`). Tests hold it to a plain copy of the
rule (`tests/oracles/yesno_rows.py`).

The rule needs three facts of each answer, all of its lower case: whether its first 4 characters hold "yes",
whether they hold "no", and whether the whole answer is "yes" or "no". Where the first 4 characters are
ASCII, lower case is ASCII's: the facts come from pyarrow kernels (the whole answer is yes or no when it has
3 bytes holding yes or 2 holding no, which is the same where the first 4 characters are ASCII: an answer of
2 or 3 characters then is ASCII, a longer one has more than 3 bytes). Elsewhere lower case is Python's (it
may change the length: "İ" becomes 2 characters), so the facts are read in Python. One step then decides.
This module loads no answer model (pydantic), so reading a results folder does not pay for one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import compute, contains, take, to_numpy

if TYPE_CHECKING:
    from mmgauge.datasources.arrow_numpy import Column

BoolArray = npt.NDArray[np.bool_]
#: Method names, in the order of the method codes the functions return.
OFFICIAL: Final = ("official-exact", "official-prefix", "official-other")
#: Answer codes: 1 yes, 0 no, -1 neither ("other").
ANSWERS: Final[dict[int, str | None]] = {1: "yes", 0: "no", -1: None}


def official_column(column: Column) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """(answer code, method code) of every answer of a pyarrow column."""
    from pyarrow._compute import SliceOptions

    head = compute("utf8_slice_codeunits", column, options=SliceOptions(0, 4))
    lowered = compute("ascii_lower", head)
    has_yes, has_no = contains(lowered, "yes"), contains(lowered, "no")
    length = to_numpy(compute("binary_length", column))
    exact = (has_yes & (length == 3)) | (has_no & (length == 2))
    unusual = np.flatnonzero(~to_numpy(compute("string_is_ascii", head)))
    if len(unusual):
        has_yes[unusual], has_no[unusual], exact[unusual] = _python_facts(take(column, unusual).to_pylist())
    return _decide(has_yes, has_no, exact)


def official_texts(texts: Sequence[str]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """`official_column` of a few answers given as Python strings (no pyarrow)."""
    return _decide(*_python_facts(texts))


def _python_facts(texts: Sequence[str]) -> tuple[BoolArray, BoolArray, BoolArray]:
    """The rule's three facts with Python's lower case."""
    lowered = [text.lower() for text in texts]
    return (np.array(["yes" in text[:4] for text in lowered], dtype=bool),
            np.array(["no" in text[:4] for text in lowered], dtype=bool),
            np.array([text in ("yes", "no") for text in lowered], dtype=bool))


def _decide(has_yes: BoolArray, has_no: BoolArray, exact: BoolArray
            ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    answer = np.full(len(has_yes), -1, dtype=np.int8)
    answer[has_no] = 0
    answer[has_yes] = 1  # where both are there, yes: the official rule looks for yes first
    method = np.full(len(has_yes), 2, dtype=np.int64)  # other
    method[has_yes | has_no] = 1  # prefix
    method[exact] = 0
    return answer, method
