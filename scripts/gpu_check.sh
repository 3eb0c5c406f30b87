#!/usr/bin/env bash
# THE prepared GPU script: on a machine with an NVIDIA GPU (the H200 of the device tool),
# builds the suite, runs the tests whose CUDA half only runs there, the ladder, the
# primitives, the Python eager rung, compute-sanitizer on the hand-written kernels, the
# article sweep (ItemSync, traced) and the batch sweep on cuda and cpu, and writes the
# analysis, all in under 8 minutes (BUDGET_S).
#
#   scripts/gpu_check.sh OUT_DIR
#
# Uses the machine's python3 (torch 2.11 = LibTorch, numpy, scipy, matplotlib, pytest),
# its CMake/ninja/nvcc, and Google Benchmark + GoogleTest from .deps/root (made here by
# scripts/fetch_gpu_deps.sh and carried). Output, within the device tool's limits (8 files):
#   OUT_DIR/gpu_check.log                 everything printed
#   OUT_DIR/results-<machine>.tar.gz      results/<machine>/ (JSON, REPORT.md, PNG, logs)
# Unpack the tarball at the repository root and commit results/<machine>/.
# Env: PYTHON (default python3), MACHINE, EPOCHS, REPETITIONS, SWEEP_EPOCHS, BUILD_DIR,
# BUDGET_S (470), RESERVE_S (30), GRACE_S (40).
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
# Sized to the 8-minute budget (the CPU main job uses 3 repetitions and 2000 traced epochs).
# BUDGET_S is the whole script's: every step gets at most what is left of it (less RESERVE_S
# for the analysis and packing) and at most its own cap; bench gets that as --budget_s, so
# rows that would start after it skip with a message and the JSON stays complete (a row
# already running may overrun by up to GRACE_S). Steps run most-needed first; ItemSync and
# BatchSweep interleave their repetitions randomly, so a cut leaves every configuration a
# fair chance of a run. Planned on the H200 (a guess until measured): build ~90 s, tests
# ~45 s, Ladder ~25 s, primitives ~60 s, Python eager ~25 s, compute-sanitizer ~45 s,
# ItemSync ~150 s, BatchSweep what is left.
export REPETITIONS="${REPETITIONS:-2}" SWEEP_REPETITIONS="${SWEEP_REPETITIONS:-2}"
export TRACE_EPOCHS="${TRACE_EPOCHS:-500}" SWEEP_EPOCHS="${SWEEP_EPOCHS:-50}"
BUDGET_S="${BUDGET_S:-470}" RESERVE_S="${RESERVE_S:-30}" GRACE_S="${GRACE_S:-40}"
left() { echo $(( BUDGET_S - RESERVE_S - ($(date +%s) - T0) )); }
# Seconds a step may take: min(its cap, what is left); 0 when too little is left to start.
allow() { local l; l=$(left); [ "$l" -gt "$1" ] && l=$1; [ "$l" -ge 10 ] && echo "$l" || echo 0; }

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
  TESTS='LadderCuda|TraceSession|bench_smoke|write_synthetic'  # LadderCuda matches LadderCudaKernels too
  step "tests with CUDA rows live (ctest -R '$TESTS')"
  not_run() { step "$1 NOT RUN: the ${BUDGET_S} s budget is spent"; }
  limit=$(allow 120)  # (timeout 0 would mean no limit: a spent budget skips instead)
  if [ "$limit" -gt 0 ]; then
    ( cd "$BUILD_DIR" && timeout "$limit" ctest --output-on-failure -j 8 -R "$TESTS" ) > "$RESULTS/ctest.log" 2>&1
    echo "ctest exit $?"; tail -n 15 "$RESULTS/ctest.log"
  else not_run "ctest"; fi

  . "$REPO_ROOT/experiments/article_sweep.sh"
  run() {  # name, cap seconds, flags...: JSON lands under its name only if bench finished
    local name=$1 limit; limit=$(allow "$2"); shift 2
    if [ "$limit" -eq 0 ]; then not_run "bench: $name"; return; fi
    step "bench: $name (--budget_s=$limit)"
    if timeout "$(( limit + GRACE_S ))" "$BUILD_DIR/bench" "$@" --devices=cpu,cuda --budget_s="$limit" \
         --benchmark_out="$RESULTS/.$name.json.partial" --benchmark_out_format=json; then
      mv "$RESULTS/.$name.json.partial" "$RESULTS/$name.json"
    else
      # Not *.json, so the analysis reads only complete files; kept for a look by hand.
      step "$name did not finish (exit $?): what it wrote is kept as $name.json.partial"
      mv "$RESULTS/.$name.json.partial" "$RESULTS/$name.json.partial" 2>/dev/null
    fi
  }
  run ladder 50 "${LADDER_FLAGS[@]}"
  run primitives 70 "${PRIMITIVE_FLAGS[@]}"
  limit=$(allow 45)
  if [ "$limit" -gt 0 ]; then
    step "python eager rung + torch.profiler kernel count (${limit} s)"
    timeout "$limit" "$PY" experiments/python_eager.py "${PYTHON_EAGER_FLAGS[@]}" \
      --devices=cpu,cuda --profile-kernels --out "$RESULTS/python_eager.json"
  else not_run "python eager rung"; fi
  limit=$(allow 70)
  if [ "$limit" -le 0 ]; then not_run "compute-sanitizer"; else
    step "compute-sanitizer on the hand-written kernels (${limit} s)"
    ( export IRIS_LADDER_TEST_EPOCHS=200
      timeout "$(( limit * 5 / 10 ))" compute-sanitizer --tool memcheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
        --gtest_filter='*LadderCuda*fused_step_kernel*:*LadderCuda*persistent_kernel*'
      echo "memcheck exit $?"
      timeout "$(( limit * 3 / 10 ))" compute-sanitizer --tool racecheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
        --gtest_filter='*LadderCuda*persistent_kernel*'
      echo "racecheck exit $?"
      timeout "$(( limit * 2 / 10 ))" compute-sanitizer --tool synccheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
        --gtest_filter='*LadderCuda*persistent_kernel*'
      echo "synccheck exit $?" ) > "$RESULTS/compute_sanitizer.log" 2>&1
    tail -n 12 "$RESULTS/compute_sanitizer.log"
  fi
  mkdir -p "$RESULTS/traces"
  run item_sync 240 "${ITEM_SYNC_FLAGS[@]}" --trace_dir="$RESULTS/traces"
  run batch_sweep 100 "${BATCH_SWEEP_FLAGS[@]}"

  step "analysis"
  "$PY" -m analysis.report "$RESULTS" --machine "$MACHINE" | tee "$RESULTS/table.txt"
fi

step "packing results/$MACHINE"
tar -czf "$OUT_DIR/results-$MACHINE.tar.gz" -C "$REPO_ROOT" "results/$MACHINE"
step "done"
