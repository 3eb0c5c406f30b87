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
# Repetitions and traced epochs sized to the 8-minute budget (the CPU main job uses 3).
# Planned: build ~90 s, tests ~60 s, ItemSync ~180 s, BatchSweep ~40 s, Ladder ~25 s,
# primitives ~30 s, Python eager ~25 s, compute-sanitizer ~60 s; each step has its own
# timeout, and a step that runs out keeps its partial JSON under another name.
export REPETITIONS="${REPETITIONS:-2}" SWEEP_REPETITIONS="${SWEEP_REPETITIONS:-2}"
export TRACE_EPOCHS="${TRACE_EPOCHS:-500}" SWEEP_EPOCHS="${SWEEP_EPOCHS:-50}"

step "machine: $MACHINE"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv 2>&1 | tee "$RESULTS/nvidia-smi.txt"
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'

step "configure + build ($BUILD_DIR)"
DEPS="$REPO_ROOT/.deps/root/usr"
PREFIX="$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')"
DEPS_ARGS=()
if [ -d "$DEPS" ]; then  # name the config folders: not every distro searches lib/<triplet>/cmake
  PREFIX="$PREFIX;$DEPS"
  export LD_LIBRARY_PATH="$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  DEPS_ARGS=(-Dbenchmark_DIR="$DEPS/lib/x86_64-linux-gnu/cmake/benchmark" -DGTest_DIR="$DEPS/lib/x86_64-linux-gnu/cmake/GTest")
fi
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" "${DEPS_ARGS[@]}" \
      -DPython3_EXECUTABLE="$(command -v "$PY")" -DIRIS_WITH_CUDA=ON > "$RESULTS/build.log" 2>&1 &&
  cmake --build "$BUILD_DIR" -j "$(nproc)" >> "$RESULTS/build.log" 2>&1
BUILD_RC=$?
grep -h "iris: CUDA parts" "$RESULTS/build.log"  # says whether CUDA, NVTX and CUPTI were found
tail -n 5 "$RESULTS/build.log"
if [ $BUILD_RC -ne 0 ]; then
  step "BUILD FAILED (see build.log)"; tail -n 60 "$RESULTS/build.log"
else
  # CI runs the whole suite without a GPU; here, the tests whose CUDA half only runs here.
  step "tests with CUDA rows live (ctest -R 'LadderCuda|bench_smoke|write_synthetic')"
  ( cd "$BUILD_DIR" && timeout 120 ctest --output-on-failure -j 8 -R 'LadderCuda|bench_smoke|write_synthetic' ) \
    > "$RESULTS/ctest.log" 2>&1
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
  run item_sync 240 "${ITEM_SYNC_FLAGS[@]}" --trace_dir="$RESULTS/traces"
  run batch_sweep 100 "${BATCH_SWEEP_FLAGS[@]}"
  run ladder 60 "${LADDER_FLAGS[@]}"
  run primitives 60 "${PRIMITIVE_FLAGS[@]}"
  step "python eager rung + torch.profiler kernel count"
  timeout 60 "$PY" experiments/python_eager.py "${PYTHON_EAGER_FLAGS[@]}" --devices=cpu,cuda --profile-kernels \
    --out "$RESULTS/python_eager.json"
  step "compute-sanitizer on the hand-written kernels"
  ( export IRIS_LADDER_TEST_EPOCHS=200
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
      --gtest_filter='*LadderCuda*fused_step_kernel*:*LadderCuda*persistent_kernel*'
    echo "memcheck exit $?"
    timeout 40 compute-sanitizer --tool racecheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
      --gtest_filter='*LadderCuda*persistent_kernel*'
    echo "racecheck exit $?" ) > "$RESULTS/compute_sanitizer.log" 2>&1
  tail -n 12 "$RESULTS/compute_sanitizer.log"

  step "analysis"
  "$PY" -m analysis.report "$RESULTS" --machine "$MACHINE" | tee "$RESULTS/table.txt"
fi

step "packing results/$MACHINE"
tar -czf "$OUT_DIR/results-$MACHINE.tar.gz" -C "$REPO_ROOT" "results/$MACHINE"
step "done"
