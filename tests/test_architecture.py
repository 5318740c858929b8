"""The package's shape: only store/ names run-folder files, no import circles, report/ loads no dataset."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "src" / "mmgauge"
RUN_FOLDER_FILES = ("manifest.json", "samples.jsonl", "scored.jsonl", "results.json")


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (module, class, function) or bare expressions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))
    return found


def test_only_the_store_names_run_folder_files() -> None:
    offenders = []
    for name, path in modules().items():
        if name.startswith("mmgauge.store"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                named = [file for file in RUN_FOLDER_FILES if file in node.value]
                offenders += [f"{name}:{node.lineno} {file}" for file in named]
    assert offenders == []


def type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside `if TYPE_CHECKING:` blocks (for the type checker, never run)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            found |= {id(inner) for stmt in node.body for inner in ast.walk(stmt)}
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The mmgauge modules `name` imports when it runs (at module level or inside functions), by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = type_checking_only(tree)
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                base = ".".join(parent[: len(parent) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        found |= {target for target in targets if target in known and target != name}
    return found


def test_no_import_circles() -> None:
    found = modules()
    known = set(found)
    graph = {name: imports(name, path, known) for name, path in found.items()}
    # Package __init__ modules that only re-export are part of the edges like any module.
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert cycles == []


def test_the_report_never_imports_benchmarks() -> None:
    found = modules()
    known = set(found)
    for name, path in found.items():
        if name.startswith("mmgauge.report"):
            targets = imports(name, path, known)
            assert not any(target.startswith("mmgauge.benchmarks") for target in targets), name
