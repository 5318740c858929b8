"""The MME tool's yes/no rule (`official`, described in `yesno.py`), the one implementation, on columns: a
results file's answers (`official_column`), or a few answers as Python strings (`official_texts`). The rule
needs three facts of an answer's lower case: "yes" in its first 4 characters, "no" in them, and the whole
being "yes" or "no". Where the first 4 characters are ASCII, pyarrow kernels find them (an answer of 2 or 3
characters is then ASCII, so its byte length is its length); elsewhere Python's lower case, which may change
the length ("İ" becomes 2 characters), does. No pydantic here: reading a results folder loads no model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

from mmgauge.datasources.arrow_numpy import compute, contains, head_code_units, take, to_numpy

if TYPE_CHECKING:
    from mmgauge.datasources.arrow_numpy import Column

Flags = npt.NDArray[np.bool_]
Facts = tuple[Flags, Flags, Flags]
Read = tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]
#: Method names by method code, and answers by answer code.
OFFICIAL: Final = ("official-exact", "official-prefix", "official-other")
ANSWERS: Final[dict[int, str | None]] = {1: "yes", 0: "no", -1: None}


def official_column(column: Column) -> Read:
    """(answer code, method code) of every answer of a pyarrow column."""
    head = head_code_units(column, 4)
    lowered = compute("ascii_lower", head)
    has_yes, has_no = contains(lowered, "yes"), contains(lowered, "no")
    length = to_numpy(compute("binary_length", column))
    exact = (has_yes & (length == 3)) | (has_no & (length == 2))
    unusual = np.flatnonzero(~to_numpy(compute("string_is_ascii", head)))
    if len(unusual):
        has_yes[unusual], has_no[unusual], exact[unusual] = _python_facts(take(column, unusual).to_pylist())
    return _decide(has_yes, has_no, exact)


def official_texts(texts: Sequence[str]) -> Read:
    return _decide(*_python_facts(texts))


def _python_facts(texts: Sequence[str]) -> Facts:
    lowered = [text.lower() for text in texts]
    return (np.array(["yes" in text[:4] for text in lowered], dtype=bool),
            np.array(["no" in text[:4] for text in lowered], dtype=bool),
            np.array([text in ("yes", "no") for text in lowered], dtype=bool))


def _decide(has_yes: Flags, has_no: Flags, exact: Flags) -> Read:
    answer = np.full(len(has_yes), -1, dtype=np.int8)
    answer[has_no] = 0
    answer[has_yes] = 1  # where both are there, yes: the official rule looks for yes first
    method = np.where(exact, 0, np.where(has_yes | has_no, 1, 2)).astype(np.int64)
    return answer, method
