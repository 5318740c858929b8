#!/usr/bin/env bash
# The GPU bench of the hf backend on a lent machine that lacks mmgauge's dependencies.
#
#   bash bench/hf_gpu_device.sh wheels   # here: mmgauge and the wheels it needs there, into .whl/
#   bash bench/hf_gpu_device.sh run      # there: install them beside its torch, run bench/hf_gpu.py
#
# `run` writes its log and JSON to $OUT (or ./hf-gpu-out); it took 8.4 minutes on an H100 with 16 images in
# the batch-1 check (the model built, 2 rounds of 1,160 requests each way: 6 minutes; the check and the
# profile); the check now has 8 images and three clients (the bare loop twice), about as long. The wheels are for
# CPython 3.12 on x86-64 Linux, the lent machines' Python (`.whl/` is in .gitignore).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  wheels)
    rm -rf .whl && mkdir .whl
    pip wheel -q --no-deps -w .whl .
    platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
               --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64
               --platform manylinux_2_5_x86_64 --platform manylinux1_x86_64)
    # What mmgauge imports and such an image lacks, at the versions tested here; transformers and regex
    # as tested here too (the image's may be older); py-spy, to sample both clients (`--py-spy`).
    for name in pydantic pydantic_core annotated_types typing_inspection typing_extensions orjson openpyxl \
                et_xmlfile click transformers regex py-spy; do
      version=$(python -c "import importlib.metadata as m; print(m.version('$name'))")
      fetch=(python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp
             "${platforms[@]}" -d .whl)
      # A version with no wheel for 3.12 (an older orjson): the newest that has one.
      "${fetch[@]}" "$name==$version" 2>/dev/null || "${fetch[@]}" "$name"
    done
    du -sh .whl ;;
  run)
    out=${OUT:-hf-gpu-out}
    mkdir -p "$out"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
      .whl/*.whl
    export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
    python3 bench/hf_gpu.py --images 580 --batch-size 32 --repeat 2 --check-images 8 --profile --work /tmp/hf-gpu \
      --py-spy "$out" --json-out "$out/hf_gpu.json" 2>&1 | grep -v -i -E "warn|it/s\]" | tee "$out/log.txt" ;;
  *)
    echo "usage: bash bench/hf_gpu_device.sh wheels|run" >&2
    exit 2 ;;
esac
