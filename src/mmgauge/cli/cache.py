"""`mmgauge cache stats|clear`."""

from __future__ import annotations

from pathlib import Path

import typer

CACHE_PATH_HELP = "Response cache file (default ~/.cache/mmgauge/responses.sqlite)."


def register(cache_app: typer.Typer) -> None:
    @cache_app.command("stats")
    def stats(cache_path: Path | None = typer.Option(None, "--cache-path", help=CACHE_PATH_HELP)) -> None:
        """Entries per model and size on disk."""
        from rich.console import Console

        from mmgauge.store.cache import ResponseCache, default_cache_path

        cache = ResponseCache(cache_path or default_cache_path())
        info = cache.stats()
        console = Console()
        console.print(f"cache {info.path}: {info.entries} responses, {info.size_bytes / 1e6:.1f} MB")
        for model, count in sorted(info.models.items()):
            console.print(f"  {model or '(unknown model)'}: {count}")

    @cache_app.command("clear")
    def clear(
        cache_path: Path | None = typer.Option(None, "--cache-path", help=CACHE_PATH_HELP),
        model: str | None = typer.Option(
            None, "--model-fingerprint", help="Clear only this model's entries."
        ),
    ) -> None:
        """Delete cached responses (all, or one model's)."""
        from rich.console import Console

        from mmgauge.store.cache import ResponseCache, default_cache_path

        cache = ResponseCache(cache_path or default_cache_path())
        removed = cache.clear(model)
        Console().print(f"removed {removed} cached responses from {cache.path}")
