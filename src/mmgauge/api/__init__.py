"""mmgauge's Python API: evaluate models, load runs, score files produced elsewhere.

Import from the top-level package: `from mmgauge import evaluate, load_run, score_mme, ...`.
"""
