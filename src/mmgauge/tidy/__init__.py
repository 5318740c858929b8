"""Tidy rows: every headline metric and breakdown of a benchmark's result as one row each.

`mmgauge.parts.tidy` holds the row type and the generic fallback (numeric leaves of any result JSON);
`builtin.py` the rows of the built-in benchmarks (their `tidy_rows` hooks name them) and of General-Level
reports; `mmgauge.api.export` puts them into one table.
"""
