"""mmgauge's version: in the lowest layer, so that the store, the report and the Ray workers can name it
without importing the top-level package (whose lazy exports are the library's top layer)."""

__version__ = "0.1.0"
