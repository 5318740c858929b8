"""The kit a benchmark package builds its parts from, below the benchmarks so that they may import it.

`tidy.py`: the row type of `export table` and the generic rows. For comparisons and audits: `answers.py`
(the slim view of a record), `outcomes.py` (the per-item table two runs are paired on), `metric_rows.py`
(one compared number, `CompareSettings`) and `floors.py` (MOVER floors of composite intervals). The
framework code that assembles these parts (the tidy table, the report, the comparison) sits above the
benchmarks and asks their hooks.
"""
