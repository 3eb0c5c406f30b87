#!/usr/bin/env bash
# THE prepared GPU script: on a machine with an NVIDIA GPU (the H200 of the device tool),
# builds the suite, runs every test with the CUDA rows live, runs the article sweep and the
# batch sweep on cuda and cpu, and writes the analysis, all in under 8 minutes.
#
#   scripts/gpu_check.sh OUT_DIR
#
# Uses the machine's python3 (torch 2.11 = LibTorch, numpy, scipy, matplotlib, pytest),
# its CMake/ninja/nvcc, and Google Benchmark + GoogleTest from .deps/root (made here by
# scripts/fetch_gpu_deps.sh and carried). Output, within the device tool's limits (8 files):
#   OUT_DIR/gpu_check.log                 everything printed
#   OUT_DIR/results-<machine>.tar.gz      results/<machine>/ (JSON, REPORT.md, PNG, logs)
# Unpack the tarball at the repository root and commit results/<machine>/.
# Env: PYTHON (default python3), MACHINE, EPOCHS, REPETITIONS, SWEEP_EPOCHS, BUILD_DIR.
set -uo pipefail
OUT_DIR="${1:?usage: scripts/gpu_check.sh OUT_DIR}"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
exec > >(tee "$OUT_DIR/gpu_check.log") 2>&1
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"
T0=$(date +%s)
step() { say "[$(( $(date +%s) - T0 ))s] $*"; }

PY="${PYTHON:-python3}"
BUILD_DIR="${BUILD_DIR:-$REPO_ROOT/build-gpu}"
MACHINE="${MACHINE:-$(machine_name)}"
RESULTS="$REPO_ROOT/results/$MACHINE"
mkdir -p "$RESULTS"
# Repetitions sized to the 8-minute budget (the CPU main job uses 3).
export REPETITIONS="${REPETITIONS:-2}" SWEEP_REPETITIONS="${SWEEP_REPETITIONS:-2}"

step "machine: $MACHINE"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv 2>&1 | tee "$RESULTS/nvidia-smi.txt"
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'

step "configure + build ($BUILD_DIR)"
DEPS="$REPO_ROOT/.deps/root/usr"
PREFIX="$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')"
[ -d "$DEPS" ] && PREFIX="$PREFIX;$DEPS" && export LD_LIBRARY_PATH="$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" \
      -DPython3_EXECUTABLE="$(command -v "$PY")" -DIRIS_WITH_CUDA=ON > "$RESULTS/build.log" 2>&1 &&
  cmake --build "$BUILD_DIR" -j "$(nproc)" >> "$RESULTS/build.log" 2>&1
BUILD_RC=$?
tail -n 5 "$RESULTS/build.log"
if [ $BUILD_RC -ne 0 ]; then
  step "BUILD FAILED (see build.log)"; tail -n 60 "$RESULTS/build.log"
else
  step "tests (ctest, CUDA rows live)"
  ( cd "$BUILD_DIR" && timeout 150 ctest --output-on-failure -j 8 ) > "$RESULTS/ctest.log" 2>&1
  echo "ctest exit $?"; tail -n 15 "$RESULTS/ctest.log"

  . "$REPO_ROOT/experiments/article_sweep.sh"
  run() {  # name, timeout, flags...: JSON lands under its name only if bench finished
    local name=$1 limit=$2; shift 2
    step "bench: $name"
    if timeout "$limit" "$BUILD_DIR/bench" "$@" --devices=cpu,cuda \
         --benchmark_out="$RESULTS/.$name.partial" --benchmark_out_format=json; then
      mv "$RESULTS/.$name.partial" "$RESULTS/$name.json"
    else
      step "$name did not finish (exit $?): partial JSON kept as $name.partial.json"
      mv "$RESULTS/.$name.partial" "$RESULTS/$name.partial.json" 2>/dev/null
    fi
  }
  mkdir -p "$RESULTS/traces"
  run item_sync 270 "${ITEM_SYNC_FLAGS[@]}" --trace_dir="$RESULTS/traces"
  run batch_sweep 100 "${BATCH_SWEEP_FLAGS[@]}"

  step "analysis"
  "$PY" -m analysis.report "$RESULTS" --machine "$MACHINE" | tee "$RESULTS/table.txt"
fi

step "packing results/$MACHINE"
tar -czf "$OUT_DIR/results-$MACHINE.tar.gz" -C "$REPO_ROOT" "results/$MACHINE"
step "done"
