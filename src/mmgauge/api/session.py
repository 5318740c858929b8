"""One evaluation, from an `EvalRequest` to `RunResults`: benchmarks, backend, judge, lock, manifest, run."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from mmgauge.api.options import benchmark_options
from mmgauge.api.request import EvalRequest
from mmgauge.api.run_config import recorded_config
from mmgauge.backends.base import Backend, BackendSettings
from mmgauge.core.errors import UserError
from mmgauge.core.secrets import public_spec
from mmgauge.core.types import DatasetEntry, GenerationConfig, ModelSpec
from mmgauge.runner.executor import Executor, LocalExecutor
from mmgauge.runner.progress import NullProgress, ProgressSink
from mmgauge.runner.run import BenchmarkRun, Runner
from mmgauge.store.manifest import ManifestStore, now
from mmgauge.store.results import RunResults
from mmgauge.store.run_folder import RunFolder

logger = logging.getLogger(__name__)


class EvalSession:
    def __init__(self, request: EvalRequest, progress: ProgressSink | None = None) -> None:
        self.request = request
        self.progress = progress or NullProgress()
        self.folder = RunFolder(request.out)
        self._closers: list[Any] = []

    async def run(self) -> RunResults:
        request = self.request
        logger.debug("run configuration: %s", recorded_config(request))
        with self.folder.lock(request.command, now()):
            try:
                return await self._locked()
            finally:
                for close in reversed(self._closers):
                    with contextlib.suppress(Exception):  # closing must not hide the run's own outcome
                        await close()

    async def _locked(self) -> RunResults:
        spec, backend = self._backend()
        backend.check_generation(self._generation())  # a setting the model refuses stops it before any work
        if self.request.executor == "local":
            # A local model's weights (an endpoint's client library) load in the background while the data is
            # read and the requests are planned; the first batch waits for them. Ray workers load their own.
            backend.warm_up()
        # No collector settings here: they are the whole process's, and a library call leaves its caller's
        # alone (the command line sets its own, in cli/main.py).
        return await self._evaluate(spec, backend, self._benchmark_runs())

    def _generation(self) -> GenerationConfig:
        request = self.request
        return GenerationConfig(temperature=request.temperature, max_tokens=request.max_tokens,
                                seed=request.seed, system_prompt=request.system_prompt)

    async def _evaluate(self, spec: ModelSpec, backend: Backend, runs: list[BenchmarkRun]) -> RunResults:
        request = self.request
        config = self._generation()
        self.progress.status(f"starting model {spec.label()}")
        if backend.stage_listener is None:  # a caller's backend may report to its own
            backend.stage_listener = self.progress.stage
        await backend.start()
        self._warn(backend)
        logger.debug("model %s: fingerprint %s, %s", spec.label(), backend.fingerprint(), backend.describe())
        from mmgauge.store.cache import ResponseCache, default_cache_path

        cache = ResponseCache(request.cache_path or default_cache_path()) if request.cache else None
        if cache is not None:
            self._closers.append(_async(cache.close))
        judge_spec, judge = await self._judge(spec, cache)
        executor = self._executor(spec, backend)
        public_judge = public_spec(judge_spec) if judge_spec is not None else None
        manifest = ManifestStore.open(
            self.folder, model=public_spec(spec), model_fingerprint=backend.fingerprint(), generation=config,
            judge=public_judge, datasets=[_entry(run) for run in runs],
            seeds={"generation": request.seed, "benchmarks": request.seed}, command=request.command,
            backend=backend.describe(), executor=executor.describe(), config=recorded_config(request),
            judge_backend=judge.backend.describe() if judge is not None else None,
        )
        manifest.begin(request.command, [run.benchmark.name for run in runs], request.limit)
        self.progress.watch_concurrency(executor.live_concurrency)
        self.progress.watch_retries(executor.failed_attempts)
        runner = Runner(backend, config, self.folder, cache=cache, force_cache=request.force_cache,
                        judge=judge, progress=self.progress, executor=executor,
                        keep_reasoning=request.keep_reasoning)
        try:
            results = await runner.run(runs, manifest)
        except BaseException as error:
            interrupted = isinstance(error, KeyboardInterrupt | asyncio.CancelledError)
            manifest.end("interrupted" if interrupted else "stopped", {}, backend.generation_stats())
            raise
        counts = {name: {"requested": b.requested, "cache_hits": b.cache_hits, "resumed": b.resumed,
                         "failed": b.failed, "judge_calls": b.judge_calls, "records": b.records or 0}
                  for name, b in results.benchmarks.items()}
        logger.info("run into %s ended: %s", self.folder.path, counts)
        manifest.end("failed" if results.failed else "finished", counts, backend.generation_stats())
        if results.failed == 0:
            manifest.finish()
        return results

    # -- parts -----------------------------------------------------------------------------------------------

    def _benchmark_runs(self) -> list[BenchmarkRun]:
        from mmgauge.benchmarks.base import no_sample_message
        from mmgauge.benchmarks.registry import benchmark_names, get_benchmark, vlmevalkit_names
        from mmgauge.benchmarks.sample_check import is_builtin_sample
        from mmgauge.datasources.confine import loaded_path
        from mmgauge.datasources.locate import resolve_data

        request = self.request
        names = request.benchmarks or benchmark_names()
        unknown = sorted(set(request.data) - set(names))
        if unknown:
            raise UserError(f"--data names {unknown[0]!r}, which is not among the benchmarks run",
                            field="--data")
        options = benchmark_options(names, request.options, seed=request.seed)
        benches = [(name, get_benchmark(name, options[name])) for name in names]
        # Before any sample is written: a benchmark that has none needs its data given.
        for name, bench in benches:
            if name not in request.data and not bench.has_sample_data():
                raise UserError(no_sample_message(name))
        runs = []
        for name, bench in benches:
            given = request.data.get(name)
            if given is None:
                self.progress.status(f"writing the built-in {name} sample")
                path = bench.sample_data(self.folder.sample_data_dir(name))
            else:
                found = resolve_data(name, given, vlmevalkit=vlmevalkit_names(name),
                                     whole_repo=bench.hf_whole_repo, own_words=bench.data_words)
                # A word the benchmark's loader reads itself (M3GIA's `hf`) goes to it as given; a path is
                # made absolute, but not resolve()d: a hub snapshot's x.parquet would become its blob.
                path = found if given.strip() in bench.data_words else loaded_path(found)
            self.progress.status(f"loading {name} data from {path}")
            dataset = bench.load(path)
            dataset = dataset.model_copy(update={"source": str(loaded_path(Path(dataset.source)))})
            selected = bench.select(dataset.samples, request.limit) if request.limit is not None else None
            logger.debug("%s: %d samples from %s (fingerprint %s)", name, len(dataset.samples),
                         dataset.source, dataset.fingerprint)
            # Data written by `mmgauge sample` and given back is the built-in sample all the same.
            builtin = given is None or is_builtin_sample(bench, dataset)
            runs.append(BenchmarkRun(bench, dataset, selected, builtin_sample=builtin))
        return runs

    def _settings(self) -> dict[str, Any]:
        request = self.request
        return {key: value for key, value in {
            "concurrency": request.concurrency, "batch_size": request.batch_size,
            "timeout_s": request.timeout, "max_retries": request.max_retries,
            "accept_empty": request.accept_empty or None, "cache_namespace": request.cache_namespace,
            "answer_files": _answer_files(request.benchmarks) or None,
        }.items() if value is not None}

    def _backend(self) -> tuple[ModelSpec, Backend]:
        from mmgauge.backends.spec import load_backend

        model = self.request.model
        if isinstance(model, Backend):
            cls = type(model)
            spec = ModelSpec(backend=f"python:{cls.__module__}.{cls.__qualname__}")
            return spec, model  # the caller's object: the caller closes it
        if isinstance(model, ModelSpec):
            model = model.model_dump_json()
        self.progress.status(f"loading model {model}")
        spec, backend = load_backend(str(model), api_key_env=self.request.api_key_env, **self._settings())
        self._closers.append(backend.aclose)
        return spec, backend

    async def _judge(self, model: ModelSpec, cache: Any) -> tuple[ModelSpec | None, Any]:
        from mmgauge.backends.registry import build_backend
        from mmgauge.backends.spec import load_backend
        from mmgauge.extraction.judge import Judge

        text = self.request.judge
        if text is not None and text.strip().lower() == "none":
            return None, None
        key_env = self.request.judge_api_key_env
        if text is None:
            # Not given: the judge the folder was scored with, so a narrower command keeps its verdicts.
            prior = self.folder.read_manifest() if self.folder.has_manifest() else None
            if prior is None or prior.judge is None:
                return None, None
            spec = prior.judge
            if key_env is not None:
                spec = spec.model_copy(update={"api_key_env": key_env})
            backend = build_backend(spec, BackendSettings())
        else:
            spec, backend = load_backend(text, api_key_env=key_env)
            if key_env is None and spec.api_key_env is None:
                spec, backend = _same_host_key(model, spec, backend)
        self._closers.append(backend.aclose)
        await backend.start()
        self._warn(backend, "judge: ")
        return spec, Judge(backend, cache)

    def _warn(self, backend: Backend, who: str = "") -> None:
        # Said once, before any request: the manifest keeps them too (in the backend's description).
        for notice in backend.notices():
            self.progress.status(f"warning: {who}{notice}")

    def _executor(self, spec: ModelSpec, backend: Backend) -> Executor:
        request = self.request
        given = {"--ray-address": request.ray_address, "--ray-workers": request.ray_workers,
                 "--ray-gpus-per-worker": request.ray_gpus_per_worker,
                 "--ray-inline-images": request.ray_inline_images or None}
        if request.executor == "local":
            flag = next((name for name, value in given.items() if value is not None), None)
            if flag is not None:
                raise UserError(f"{flag} needs --executor ray", field=flag)
            return LocalExecutor(backend)
        from mmgauge.runner.ray_executor import RayExecutor, RayOptions

        settings = BackendSettings.model_validate(self._settings())
        # The backend knows what its model needs (a vLLM engine: tensor x pipeline parallel GPUs).
        gpus = backend.ray_gpus(request.ray_gpus_per_worker)
        executor = RayExecutor(spec, settings, address=request.ray_address, workers=request.ray_workers or 2,
                               options=RayOptions(gpus_per_worker=gpus,
                                                  inline_images=request.ray_inline_images,
                                                  expected_fingerprint=backend.fingerprint()))
        self._closers.append(executor.aclose)
        return executor


def _entry(run: BenchmarkRun) -> DatasetEntry:
    bench = run.benchmark
    return DatasetEntry(
        benchmark=bench.name, data=run.dataset.source, fingerprint=run.dataset.fingerprint,
        samples=len(run.dataset.samples), expected=len(run.dataset.samples) * bench.options.rounds,
        options=bench.options.model_dump(mode="json"), builtin_sample=run.builtin_sample,
    )


def _answer_files(names: list[str] | None) -> tuple[str, ...]:
    """The `answer_files` hooks of the benchmarks run (all when none are named), for `replay:`."""
    from mmgauge.benchmarks.registry import benchmark_names, known_class

    classes = [known_class(name) for name in names or benchmark_names()]
    return tuple(cls.answer_files for cls in classes if cls is not None and cls.answer_files is not None)


def _same_host_key(model: ModelSpec, judge: ModelSpec, backend: Backend) -> tuple[ModelSpec, Backend]:
    """A judge on the model's own host uses the model's API key variable unless told otherwise."""
    from urllib.parse import urlparse

    from mmgauge.backends.registry import build_backend

    if model.api_key_env is None or not model.base_url or not judge.base_url:
        return judge, backend
    if urlparse(model.base_url).netloc != urlparse(judge.base_url).netloc:
        return judge, backend
    spec = judge.model_copy(update={"api_key_env": model.api_key_env})
    return spec, build_backend(spec, BackendSettings())


def _async(close: Any) -> Any:
    async def run() -> None:
        close()

    return run
