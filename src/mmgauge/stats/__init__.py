"""Statistics for honest intervals and paired comparisons: pure functions, numpy and math only.

No scipy at run time: the special functions are in `mmgauge.stats.special`. Methods and formulas are in
docs/statistics.md.
"""
