"""The kit a benchmark's report section is built from (its `report_section` hook): the `Section` and its
helpers (`section.py`), the views of a run it reads (`views.py`), charts (`plots.py`), breakdown tables
(`breakdown.py`) and tables (`tables.py`). The report (`report/`) assembles the sections into the page.
"""
