"""The package's shape: only store/ names run-folder files, every import goes down the layers (lazy ones
too), no import circles between modules or packages, report/ loads no dataset, no private module of a
dependency is imported."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "src" / "mmgauge"
RUN_FOLDER_FILES = ("manifest.json", "samples.jsonl", "scored.jsonl", "results.json")
DESIGN = Path(__file__).parents[1] / "docs" / "design.md"

#: mmgauge's packages from the bottom up: a module imports from its own layer or those below, never above
#: (at module level and inside functions alike). `mmgauge` is the top-level package: its lazy exports are
#: the library's face, beside `api/`. docs/design.md shows the same line ("Layers"), checked below.
LAYERS = (
    "core < stats, datasources < scoring, cfa, store, parts < textformat < backends < extraction"
    " < benchmarks, general_level < comparison < runner < report, tidy < api, mmgauge < cli, testing"
)
#: Imports that go up a layer, each with why it cannot go down (none today).
UPWARD_EXCEPTIONS: dict[tuple[str, str], str] = {}
#: Private modules of dependencies still imported, each with why (none today, and none may be added).
PRIVATE_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()


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
    # The registry only: the report asks a benchmark's class for its hooks (its section), never loads data.
    found = modules()
    known = set(found)
    for name, path in found.items():
        if name.startswith("mmgauge.report"):
            targets = imports(name, path, known) - {"mmgauge.benchmarks.registry"}
            assert not any(target.startswith("mmgauge.benchmarks") for target in targets), name


def layer_of() -> dict[str, int]:
    return {package.strip(): number for number, layer in enumerate(LAYERS.split("<"))
            for package in layer.split(",")}


def package(module: str) -> str:
    """`mmgauge` for the top-level package, else the name of the subpackage the module is in; `python -m
    mmgauge`'s module is the command line's."""
    if module == "mmgauge.__main__":
        return "cli"
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def test_every_package_has_a_layer_and_the_design_notes_show_the_same_layers() -> None:
    packages = {package(name) for name in modules()}
    assert sorted(packages - set(layer_of())) == []
    assert sorted(set(layer_of()) - packages) == []
    assert f"`{LAYERS}`" in " ".join(DESIGN.read_text(encoding="utf-8").split())


def test_every_import_goes_to_the_same_layer_or_one_below() -> None:
    layer = layer_of()
    upward = []
    for name, targets in import_graph().items():
        for target in targets:
            if layer[package(target)] > layer[package(name)] and (name, target) not in UPWARD_EXCEPTIONS:
                upward.append(f"{name} -> {target}")
    assert sorted(upward) == []


def test_no_import_circles_between_packages() -> None:
    edges: dict[str, set[str]] = {}
    for name, targets in import_graph().items():
        outs = edges.setdefault(package(name), set())
        outs.update(package(target) for target in targets if package(target) != package(name))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            node = todo.pop()
            if node == goal:
                return True
            if node not in seen:
                seen.add(node)
                todo += edges.get(node, set())
        return False

    circles = sorted(f"{a} -> {b} -> ... -> {a}" for a, outs in edges.items() for b in outs if reaches(b, a))
    assert circles == []


def test_no_private_module_of_a_dependency_is_imported() -> None:
    # A dependency's `_private` modules may change or vanish in any release of it.
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                # The names too: `from typer import _click` imports a private module.
                targets = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                private = any(part.startswith("_") for part in target.split("."))
                ours = target.startswith(("__future__.", "mmgauge"))
                if private and not ours and (name, target) not in PRIVATE_EXCEPTIONS:
                    found.append(f"{name}: {target}")
    assert sorted(found) == []


def test_scoring_holds_neither_arrow_nor_formatting() -> None:
    # Scoring is functions over records; arrow kernels are datasources', numbers as text textformat's. A
    # benchmark's own scorers (`benchmarks/<name>/scoring*.py`) are held to the same rule.
    for name, path in modules().items():
        parts = name.split(".")
        own = parts[:2] == ["mmgauge", "benchmarks"] and len(parts) == 4 and parts[3].startswith("scoring")
        if package(name) == "scoring" or own:
            tree = ast.parse(path.read_text(encoding="utf-8"))
            nodes = list(ast.walk(tree))
            names = [alias.name for node in nodes if isinstance(node, ast.Import) for alias in node.names]
            names += [node.module or "" for node in nodes if isinstance(node, ast.ImportFrom)]
            assert not [n for n in names if n.startswith(("pyarrow", "mmgauge.textformat", "orjson"))], name


def benchmark_packages() -> set[str]:
    """The built-in benchmarks: each is a folder `benchmarks/<name>/` with its `bench.py`."""
    return {path.parent.name for path in (PACKAGE / "benchmarks").glob("*/bench.py")}


#: Modules outside `benchmarks/<name>/` that still name a benchmark, each until its pieces move into the
#: benchmark's package. Temporary: none may be added, and an entry whose module is clean must go.
NAMES_A_BENCHMARK_EXCEPTIONS: frozenset[str] = frozenset()


def names_of_benchmarks(path: Path, names: set[str]) -> set[str]:
    """The benchmark names a module mentions as a string or an identifier (docstrings and comments not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found.add(node.value.strip().lower())
        elif isinstance(node, ast.Name):
            found.add(node.id.lower())
        elif isinstance(node, ast.Attribute):
            found.add(node.attr.lower())
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg.lower())
    return found & names


def test_no_module_outside_a_benchmark_names_one() -> None:
    names = benchmark_packages()
    offenders = set()
    for module, path in modules().items():
        parts = module.split(".")
        if parts[:2] == ["mmgauge", "benchmarks"] and len(parts) > 2 and parts[2] in names:
            continue
        if names_of_benchmarks(path, names):
            offenders.add(module)
    assert sorted(offenders - NAMES_A_BENCHMARK_EXCEPTIONS) == []
    assert sorted(NAMES_A_BENCHMARK_EXCEPTIONS - offenders) == []


def test_pyproject_declares_every_builtin_benchmark() -> None:
    # The registry's fallback (an editable install older than pyproject.toml) must never hide a missing one.
    import tomllib

    project = tomllib.loads((PACKAGE.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    declared = project["project"]["entry-points"]["mmgauge.benchmarks"]
    assert set(declared) == benchmark_packages()
    for name, target in declared.items():
        assert target.startswith(f"mmgauge.benchmarks.{name}.bench:"), name


def benchmark_tokens(text: str, names: set[str]) -> set[str]:
    """The benchmark names among a dotted or snake_case name's words (`scoring.mme_rows` -> {"mme"})."""
    return {word for word in re.split(r"[._:]", text.lower()) if word in names}


def test_no_module_outside_a_benchmark_is_named_after_one_or_imports_one() -> None:
    # A benchmark's pieces live in its package: a framework module named after a benchmark, importing a
    # benchmark's package or naming one of its modules in a lazy hook string is a piece that did not move.
    names = benchmark_packages()
    found = []
    for module, path in modules().items():
        parts = module.split(".")
        if parts[:2] == ["mmgauge", "benchmarks"] and len(parts) > 2 and parts[2] in names:
            continue
        if benchmark_tokens(module, names):
            found.append(f"{module}: named after a benchmark")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                targets = re.findall(r"mmgauge\.benchmarks\.\w+", node.value)
            for target in targets:
                words = target.split(".")
                if words[:2] == ["mmgauge", "benchmarks"] and len(words) > 2 and words[2] in names:
                    found.append(f"{module}: {target}")
    assert sorted(set(found)) == []
