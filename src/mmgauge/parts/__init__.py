"""The kit a benchmark package builds its parts from, below the benchmarks so that they may import it.

`tidy.py`: the row type of `export table` and the generic rows. The framework code that assembles these
parts (the tidy table, the report, the comparison) sits above the benchmarks and asks their hooks.
"""
