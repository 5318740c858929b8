"""Where benchmark data comes from: local paths, VLMEvalKit dataset names, Hugging Face caches (never
downloaded).

The entry point is `mmgauge.datasources.locate.resolve_data(benchmark, spec)`.
"""
