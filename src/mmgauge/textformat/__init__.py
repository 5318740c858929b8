"""Numbers as text, many at once and exactly as Python writes them (`%.4f`, `json.dumps`), for outputs written
from score columns (a benchmark's package writes its own with these). Formatting only: the numbers come from
scoring, the arrow kernels from `datasources/arrow_numpy.py`."""
