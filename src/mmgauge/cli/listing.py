"""`mmgauge list`: benchmarks (with their options and prompt presets) and backends, plug-ins included."""

from __future__ import annotations

SPEC_GRAMMAR = (
    "Model specs: embedded | openai:MODEL@URL[|URL2...] | anthropic:MODEL[@URL] | gemini:MODEL[@URL] | "
    "hf:PATH_OR_REPO_ID | vllm:PATH_OR_REPO_ID | replay:FILE | mock[:TEXT] | "
    "NAME:MODEL@URL or NAME:PATH (a plug-in) | CONFIG.yaml/.json"
)


def list_command() -> None:
    """List the benchmarks (options, prompt presets) and model backends this installation knows."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from mmgauge.api.catalog import list_backends, list_benchmarks

    console = Console(highlight=False)
    title = "Benchmarks (--bench NAME; options: --set NAME.OPTION=VALUE)"
    console.print(Text(title, style="bold underline"))
    for info in list_benchmarks():
        label = info.name + (" (plug-in)" if info.plugin else "")
        if info.problem is not None:
            # One line however wide the terminal: the whole error is what the plug-in's author needs.
            console.print(Text(f"{label}: {info.problem}", style="red"), soft_wrap=True)
            continue
        console.print(Text.assemble((label, "bold cyan"), f"  {info.description}"))
        if not info.sample:
            console.print(Text("    no built-in sample: run it with --data"))
        for option in info.options:
            console.print(Text(f"    option {option.name} = {option.default}: {option.help}"))
        for prompt in info.prompts:
            state = prompt.source if prompt.available else f"unavailable: {prompt.source}"
            console.print(Text(f"    --prompt {prompt.name}: {state}"))
    backends = Table(title="Model backends (--model)")
    backends.add_column("name", style="bold")
    backends.add_column("description")
    broken = []
    for backend in list_backends():
        label = backend.name + (" (plug-in)" if backend.plugin else "")
        if backend.problem is not None:
            broken.append(Text(f"{label}: {backend.problem}", style="red"))
            continue
        backends.add_row(label, backend.description)
    console.print(backends)
    for line in broken:  # below the table, where a cell would wrap the error over several lines
        console.print(line, soft_wrap=True)
    console.print(Text(SPEC_GRAMMAR))
