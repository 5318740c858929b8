"""The names and patterns of the official MMBench matcher, with no dependency: the rules are described in
`choice.py` and run in `choice_columns.py`."""

from __future__ import annotations

import re
from typing import Final

from mmgauge.extraction.methods import FAILURE, JUDGE, RANDOM, UNRESOLVED

FAILURE_MARKER: Final = "Failed to obtain answer via API"

RULE_LETTER: Final = "rule-letter"
RULE_REGEX: Final = "rule-regex"
RULE_TEXT: Final = "rule-text"
#: Every method a choice extraction can carry, in report order.
METHODS: Final[tuple[str, ...]] = (RULE_LETTER, RULE_REGEX, RULE_TEXT, JUDGE, RANDOM, FAILURE, UNRESOLVED)

#: The letter meaning "none of the options".
NO_OPTION: Final = "Z"

#: Rule 2 reads these characters as spaces before splitting the answer into tokens.
SEPARATORS: Final = str.maketrans(dict.fromkeys(".()[],:;!*#{}", " "))
#: Rule 3: "answer is X", any case.
ANSWER_IS: Final = re.compile(r"(?i:answer is)\s+\**([A-D])\**(?![A-Za-z])")

