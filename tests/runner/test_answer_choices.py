"""The allowed answers a benchmark offers reach only a backend that answers from them, and only its cache
keys carry them: every other backend's requests and keys are as they were."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from mmgauge.api.evaluate import evaluate
from mmgauge.backends.base import Request
from mmgauge.backends.mock import MockBackend
from mmgauge.benchmarks.m3gia.bench import M3GIABenchmark
from mmgauge.benchmarks.registry import get_benchmark
from mmgauge.core.types import AnswerChoice, ModelResponse, Sample
from mmgauge.store.cache import config_part, request_fingerprint


class Recording(MockBackend):
    def __init__(self, *, choosing: bool) -> None:
        super().__init__("Yes")
        self.answers_from_choices = choosing
        self.seen: list[Request] = []

    async def generate(self, batch: Sequence[Request]) -> list[ModelResponse]:
        self.seen.extend(batch)
        return await super().generate(batch)


def run(backend: Recording, benchmark: str, out: Path) -> list[dict[str, object]]:
    evaluate(backend, benchmark, out=out, limit=2, cache=False)
    return [json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()]


def test_a_backend_that_answers_from_choices_gets_them_and_keys_on_them(tmp_path: Path) -> None:
    backend = Recording(choosing=True)
    records = run(backend, "mme", tmp_path / "run")
    assert all(request.choices == [AnswerChoice(answer="Yes", affirms=True), AnswerChoice(answer="No")]
               for request in backend.seen)
    request = backend.seen[0]
    part = config_part(request.config)
    plain = request_fingerprint(backend.fingerprint(), part, request.messages)
    keyed = request_fingerprint(backend.fingerprint(), part, request.messages, request.choices)
    assert keyed != plain
    assert {record["fingerprint"] for record in records} >= {keyed}


def test_other_backends_get_no_choices_and_keep_their_keys(tmp_path: Path) -> None:
    backend = Recording(choosing=False)
    records = run(backend, "mmbench", tmp_path / "run")
    assert backend.seen and all(request.choices is None for request in backend.seen)
    model = backend.fingerprint()
    keys = {request_fingerprint(model, config_part(r.config), r.messages) for r in backend.seen}
    assert {record["fingerprint"] for record in records} == keys


def test_benchmarks_offer_yes_no_or_the_options_shown() -> None:
    mmbench = get_benchmark("mmbench")
    sample = Sample(id="1", benchmark="mmbench", question="Which?", options={"A": "red", "B": "blue"})
    assert mmbench.answer_choices(sample) == [AnswerChoice(answer="A", text="red"),
                                              AnswerChoice(answer="B", text="blue")]
    shuffled = M3GIABenchmark({"shuffle_options": True, "rounds": 3})
    question = Sample(id="english/1", benchmark="m3gia", question="Which?",
                      options={"A": "one", "B": "two", "C": "three"}, metadata={"language": "english"})
    for round in range(3):
        shown = shuffled.shown_options(question, round)
        choices = shuffled.answer_choices(question, round)
        assert choices is not None and [(c.answer, c.text) for c in choices] == list(shown.items())
    assert get_benchmark("mme").answer_choices(sample) is not None


def test_every_builtin_offers_choices_its_own_rules_read_back(tmp_path: Path) -> None:
    # A backend that answers with a choice's `answer` must be read as exactly that answer (POPE's reading,
    # MMStar's matcher, MME's parser, ...), or a likelihood-choosing backend would be scored on other words.
    from mmgauge.benchmarks.registry import builtin_benchmarks

    for name in sorted(builtin_benchmarks()):
        bench = get_benchmark(name)
        dataset = bench.load(bench.sample_data(tmp_path / name))
        for sample in dataset.samples[:6]:
            choices = bench.answer_choices(sample)
            assert choices, (name, sample.id)
            read = [bench.extract(sample, choice.answer).answer for choice in choices]
            assert [str(answer).lower() for answer in read] == [c.answer.lower() for c in choices], name
