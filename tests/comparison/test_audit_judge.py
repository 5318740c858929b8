"""`mmgauge audit-judge`: rule-read answers re-read by a judge, as the run's judge pass would ask it;
agreement as statsmodels computes it for the same labels; studies kept in the run folder."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mmgauge.api.audit import audit_judge
from mmgauge.core.errors import UserError
from mmgauge.store.run_folder import RunFolder
from mmgauge.testing.server import FakeOpenAIServer


def _echo(text: str) -> str:
    """A judge that reads the student's answer exactly as it is written (a bare letter, or yes/no)."""
    found = re.search(r"(?:Answer|Model's answer): (.*)", text)
    return found.group(1).strip() if found else "?"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mmgauge.cli.main import main

    out = tmp_path_factory.mktemp("audit") / "run"

    def letters(text: str) -> str:  # bare letters that vary with the question: rule-read, several categories
        return "ABCD"[sum(map(ord, text)) % 4]

    with FakeOpenAIServer(answer=letters) as server:
        try:
            main(["run", "--bench", "mmbench,m3gia", "--model", f"openai:m@{server.base_url}", "--judge",
                  "mock:B", "--out", str(out), "--no-cache"])
        except SystemExit as stop:
            assert not stop.code
    return out


def test_a_judge_reading_answers_as_written_agrees_fully(run: Path) -> None:
    with FakeOpenAIServer(answer=_echo) as server:
        study = audit_judge(run, f"openai:echo@{server.base_url}", sample=25, seed=3, cache=False)
        assert server.requests == 25  # one question per sampled answer, as the run's judge pass asks it
    assert study.overall.items == 25 and study.judge == "openai:echo"
    kappa = study.overall.judge_vs_rules
    assert kappa is not None and kappa.kappa == pytest.approx(1.0) and kappa.observed_agreement == 1.0
    assert kappa.agreement_ci.low < 1.0 == kappa.agreement_ci.high  # exact, not a point
    assert all(item.rule == item.judge for item in study.items)
    assert set(study.per_benchmark) == {"mmbench", "m3gia"}
    assert sum(a.items for a in study.per_benchmark.values()) == 25


@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")  # statsmodels' own SE
def test_a_second_judge_is_compared_with_the_rules_and_the_first(run: Path) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    with FakeOpenAIServer(answer=_echo) as server:
        study = audit_judge(run, f"openai:echo@{server.base_url}", sample=40, seed=1, against="mock:B",
                            cache=False)
    rules = [item.rule for item in study.items]
    assert [item.against for item in study.items] == ["B"] * 40
    against = study.overall.against_vs_rules
    assert against is not None
    assert against.observed_agreement == pytest.approx(rules.count("B") / 40)
    categories = sorted(set(rules) | {"B"})
    pairs = list(zip(["B"] * 40, rules, strict=True))
    table = [[sum(r == row and c == col for r, c in pairs) for col in categories] for row in categories]
    assert against.kappa == pytest.approx(inter_rater.cohens_kappa(table).kappa, abs=1e-12)
    assert study.overall.against_vs_judge is not None
    assert study.overall.against_vs_judge.kappa == pytest.approx(against.kappa)


def test_studies_are_kept_in_the_run_folder_and_the_sample_is_seeded(run: Path) -> None:
    before = RunFolder(run).read_judge_agreement()
    count = len(before.studies) if before else 0
    first = audit_judge(run, "mock:A", sample=10, seed=7, cache=False)
    again = audit_judge(run, "mock:A", sample=10, seed=7, cache=False)
    other = audit_judge(run, "mock:A", sample=10, seed=8, cache=False)
    assert [i.sample_id for i in first.items] == [i.sample_id for i in again.items]
    assert [i.sample_id for i in first.items] != [i.sample_id for i in other.items]
    kept = RunFolder(run).read_judge_agreement()
    assert kept is not None and len(kept.studies) == count + 3
    assert kept.studies[-1].seed == 8 and kept.studies[-1].judge == "mock:A"


def test_the_run_s_own_judge_is_the_default(run: Path) -> None:
    study = audit_judge(run, sample=5, cache=False)
    assert study.judge == "mock:B"


def test_mme_answers_are_re_read_with_the_mme_judge_prompt(tmp_path: Path, cli: Any) -> None:
    done = cli("run", "--bench", "mme", "--model", "mock:Yes", "--out", tmp_path / "mme", "--no-cache")
    assert done.code == 0
    with FakeOpenAIServer(answer=lambda text: "no" if "yes/no question" in text else "?") as server:
        study = audit_judge(tmp_path / "mme", f"openai:j@{server.base_url}", sample=12, cache=False)
    assert {(item.rule, item.judge) for item in study.items} == {("yes", "no")}
    assert study.overall.judge_vs_rules is not None and study.overall.judge_vs_rules.observed_agreement == 0


def test_the_audit_judge_reads_answers_without_the_reasoning_the_rules_were_kept_from(tmp_path: Path,
                                                                                     cli: Any) -> None:
    model = "mock:<think>No, surely not.</think> Yes"
    done = cli("run", "--bench", "mme", "--model", model, "--out", tmp_path / "mme", "--no-cache")
    assert done.code == 0
    seen: list[str] = []
    with FakeOpenAIServer(answer=lambda text: seen.append(text) or _echo(text)) as server:
        study = audit_judge(tmp_path / "mme", f"openai:j@{server.base_url}", sample=6, cache=False)
    assert seen and all("Model's answer: Yes" in text and "surely" not in text for text in seen)
    assert {(item.rule, item.judge) for item in study.items} == {("yes", "yes")}


def test_what_cannot_be_audited_is_one_line(run: Path, cli: Any, tmp_path: Path) -> None:
    assert cli("run", "--bench", "mmbench", "--model", "mock:Yes", "--out", tmp_path / "nojudge",
               "--no-cache").code == 0
    line = cli("audit-judge", tmp_path / "nojudge", "--sample", "5").error_line()
    assert "without a judge" in line
    line = cli("audit-judge", tmp_path / "nojudge", "--sample", "5", "--judge", "mock:A").error_line()
    assert "no answers read by rules" in line
    with pytest.raises(UserError, match="at least 1"):
        audit_judge(run, "mock:A", sample=0)


def test_data_changed_since_the_run_is_one_line(tmp_path: Path, cli: Any) -> None:
    out = tmp_path / "run"
    assert cli("run", "--bench", "mmbench", "--model", "mock:A", "--out", out, "--no-cache").code == 0
    data = Path(json.loads((out / "manifest.json").read_text())["datasets"][0]["data"])
    data.write_text(data.read_text().replace("Which word is written", "Which word is shown"))
    line = cli("audit-judge", out, "--sample", "3", "--judge", "mock:A").error_line()
    assert "mmbench data changed since the run" in line


def test_the_command_prints_the_agreement(run: Path, cli: Any) -> None:
    done = cli("audit-judge", run, "--sample", "6", "--judge", "mock:A", "--no-cache")
    assert done.code == 0, done.err
    assert "re-reading 6 rule-read answers" in done.out and "agree" in done.out
    as_json = cli("audit-judge", run, "--sample", "6", "--judge", "mock:A", "--no-cache", "--json")
    assert json.loads(as_json.out)["overall"]["items"] == 6
