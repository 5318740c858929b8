"""General-Level (General-Bench, 2025): the specialist table and model results, as the release writes them."""

from mmgauge.general_level.tables import default_sota_path, load_results, load_specialist_table

__all__ = ["default_sota_path", "load_results", "load_specialist_table"]
