"""Comparing runs on the same items: paired tests and intervals per benchmark and breakdown (`compare`), and
what an LLM judge decided in a run (`audit`).

- `outcomes.py`: the built-in benchmarks' per-item outcome tables (MME questions, MMBench question groups,
  M3GIA questions) and the generic one.
- `sources.py`: reading run folders and prediction files into outcome tables.
- In `parts/`, below the benchmarks so that their packages may use them: `answers.py` (the slim view of a
  record that comparisons and audits need), `outcomes.py` (the `Outcomes` table), `metric_rows.py` (one
  compared number: McNemar + Newcombe, or the paired bootstrap) and `floors.py` (the MOVER floor that keeps
  composite intervals from collapsing).
- `generic.py`: what is compared for a benchmark without its own comparer (MME's, MMBench's and M3GIA's:
  their packages' `compare.py`).
- `core.py`: pairing, every pair of runs, Holm's correction; `text.py`: the terminal table.
- `audit.py`: judge-free bounds from records; `agreement.py`: judge-vs-rule agreement (audit-judge).

Methods and their checks: docs/statistics.md.
"""
