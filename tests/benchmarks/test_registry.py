"""`score NAME` is found from the benchmark's `score_command` hook without importing the benchmark: a built-in
class's hook is read from its source, and must say what the class says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mmgauge.benchmarks import registry
from mmgauge.core.loading import UNDECLARED, declared_constant

HOOKS = ("score_command", "export_command", "report_section", "comparer", "comparison_notes",
         "outcomes_builder", "audit_rules", "record_judge", "tidy_rows")


@pytest.mark.parametrize("name", sorted(registry.builtin_benchmarks()))
def test_a_builtin_s_hooks_read_from_its_source_are_its_class_s(name: str) -> None:
    cls = registry.benchmark_class(name)
    target = registry.builtin_benchmarks()[name]
    for hook in HOOKS:
        assert registry.hook_target(name, hook) == getattr(cls, hook), (name, hook)
    # The command line's way (no import) is the one taken for every built-in.
    assert declared_constant(target, "score_command") is not UNDECLARED
    assert registry.hook_target(name.upper(), "score_command") == cls.score_command
    assert registry.hook_target("no-such-benchmark", "score_command") is None
    assert registry.class_attribute(name, "in_default_run") == cls.in_default_run
    # Tuples of plain values too (a run reads every built-in's VLMEvalKit names without importing them).
    own = "vlmevalkit_names" in vars(cls)
    assert declared_constant(target, "vlmevalkit_names") is not UNDECLARED or not own
    assert registry.class_attribute(name, "vlmevalkit_names") == cls.vlmevalkit_names


@pytest.mark.parametrize("hook", ["score_command", "export_command"])
def test_the_hooked_commands_are_the_default_benchmarks_whose_class_names_one(hook: str) -> None:
    assert registry.command_hooks(hook) == [name for name in registry.benchmark_names()
                                            if getattr(registry.benchmark_class(name), hook) is not None]
    assert set(registry.command_hooks("export_command")) == {"mme", "mmbench"}


def test_a_hook_the_source_does_not_say_plainly_comes_from_the_class(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "stand_in_bench.py").write_text(
        "from mmgauge.benchmarks.mme.bench import MMEBenchmark\n\n\n"
        "class Inherited(MMEBenchmark):\n    pass\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.BENCHMARKS, "stand-in", "stand_in_bench:Inherited")
    monkeypatch.setitem(registry.BENCHMARKS, "broken", "stand_in_bench:Missing")
    from mmgauge.benchmarks.mme.bench import MMEBenchmark

    assert registry.hook_target("stand-in", "score_command") == MMEBenchmark.score_command
    assert registry.hook_target("broken", "score_command") is None  # as `known_class` says: no such class


def test_finding_score_name_imports_none_of_the_benchmarks(cli: Any) -> None:
    # What the command's own module imports is its business: it is imported first, and only what finding and
    # mounting the command adds is looked at.
    code = ("import importlib, sys\nfrom mmgauge.cli.main import main\n"
            "from mmgauge.benchmarks.registry import hook_target\n"
            "importlib.import_module((hook_target(sys.argv[2], 'score_command') or '').partition(':')[0])\n"
            "before = set(sys.modules)\ntry:\n    main(sys.argv[1:])\n"
            "except SystemExit as stop:\n"
            "    loaded = sorted(m for m in set(sys.modules) - before\n"
            "                    if m.endswith('.bench') or m == 'mmgauge.benchmarks.base')\n"
            "    sys.stderr.write(f'exit {stop.code} {loaded}')")
    for name in sorted(registry.builtin_benchmarks()):
        done = subprocess.run([sys.executable, "-c", code, "score", name, "--help"], capture_output=True,
                              text=True, check=True)
        assert done.stderr == "exit 0 []", (name, done.stderr)
        assert f"Usage: mmgauge score {name} [OPTIONS]" in done.stdout
    lookup = ("import sys\nfrom mmgauge.benchmarks.registry import command_hooks, hook_target\n"
              "names = command_hooks('score_command')\n"
              "targets = [hook_target(name, 'score_command') for name in names]\n"
              "sys.stdout.write(repr(sorted(m for m in sys.modules\n"
              "                             if m.endswith('.bench') or m == 'mmgauge.benchmarks.base')))")
    done = subprocess.run([sys.executable, "-c", lookup], capture_output=True, text=True, check=True)
    assert done.stdout == "[]"
    assert cli("score", "no-such-benchmark").code == 2
