#!/usr/bin/env bash
# THE prepared GPU script: on a machine with an NVIDIA GPU (the H200 of the device tool),
# checks its tools, builds the suite, runs the tests whose CUDA half only runs there, then
# the article's table first (ItemSync on cuda, untraced then its traced pass), and after it
# ItemSync on the CPU, the ladder, the primitives, the CUPTI detach check, the Python eager
# rung, compute-sanitizer on the hand-written kernels and the batch sweep, and writes the
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
# Env: PYTHON (default python3), MACHINE, EPOCHS, REPETITIONS, SWEEP_EPOCHS, GPU_BUILD_DIR,
# BUDGET_S (470), RESERVE_S (30), GRACE_S (40), ALLOW_NO_GPU=1 (a CPU dry run: the checks
# that need a GPU warn instead of stopping the run).
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
# A build folder of its own: this script configures against the machine's python3 and torch
# with IRIS_WITH_CUDA=ON, while build/ (common.sh's BUILD_DIR, setup.sh's) is configured
# against the cached venv; sharing one folder would reconfigure it back and forth.
BUILD_DIR="${GPU_BUILD_DIR:-$REPO_ROOT/build-gpu}"
MACHINE="${MACHINE:-$(machine_name)}"
RESULTS="$REPO_ROOT/results/$MACHINE"
mkdir -p "$RESULTS"
# BUDGET_S is the whole script's: every step gets at most what is left of it (less RESERVE_S
# for the analysis and packing) and at most its own cap; bench gets that as --budget_s, so
# rows that would start after it skip with a message and the JSON stays complete (a row
# already running may overrun by up to GRACE_S). Steps run most-needed first: the article's
# table on the GPU right after the build and the GPU tests. ItemSync and BatchSweep
# interleave their repetitions randomly, so a cut leaves every configuration a fair chance.
# Planned on the H200 (a guess until measured): build ~90 s, tests ~45 s, probe ~15 s,
# ItemSync cuda ~120 s, ItemSync cpu ~40 s, then what is left for the rest.
export REPETITIONS="${REPETITIONS:-2}" SWEEP_REPETITIONS="${SWEEP_REPETITIONS:-2}"
export SWEEP_EPOCHS="${SWEEP_EPOCHS:-50}"
BUDGET_S="${BUDGET_S:-470}" RESERVE_S="${RESERVE_S:-30}" GRACE_S="${GRACE_S:-40}"
left() { echo $(( BUDGET_S - RESERVE_S - ($(date +%s) - T0) )); }
# Seconds a step may take: min(its cap, what is left); 0 when too little is left to start.
allow() { local l; l=$(left); [ "$l" -gt "$1" ] && l=$1; [ "$l" -ge 10 ] && echo "$l" || echo 0; }
not_run() { step "$1 NOT RUN: the ${BUDGET_S} s budget is spent"; }
pack() {
  step "packing results/$MACHINE"
  tar -czf "$OUT_DIR/results-$MACHINE.tar.gz" -C "$REPO_ROOT" "results/$MACHINE"
  step "done"
}

# --- 0. Preflight: every tool this run needs, or a readable reason to stop now ----------
step "machine: $MACHINE; preflight"
problems=() warnings=()
need_gpu() { if [ "${ALLOW_NO_GPU:-0}" = 1 ]; then warnings+=("$1"); else problems+=("$1"); fi; }
if ! command -v nvcc >/dev/null 2>&1; then  # the toolkit's usual places, when not on PATH
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin /opt/cuda/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
  done
fi
if command -v nvcc >/dev/null 2>&1; then echo "nvcc: $(command -v nvcc) ($(nvcc --version | tail -n 1))"
else problems+=("nvcc: not on PATH nor in /usr/local/cuda/bin (the CUDA parts cannot build)"); fi
for tool in cmake ninja; do
  if command -v "$tool" >/dev/null 2>&1; then echo "$tool: $("$tool" --version | head -n 1)"
  else problems+=("$tool: not on PATH"); fi
done
if ! "$PY" -c 'import torch, pytest, numpy, scipy, matplotlib; print("python:", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'; then
  problems+=("$PY: cannot import torch, pytest, numpy, scipy and matplotlib")
fi
if ! command -v nvidia-smi >/dev/null 2>&1; then
  need_gpu "nvidia-smi: not found: no NVIDIA driver, so no GPU visible"
elif smi=$(nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.sm,clocks.max.sm,memory.total --format=csv 2>&1); then
  echo "$smi" | tee "$RESULTS/nvidia-smi.txt"
  case "$smi" in
    *Prohibited*) need_gpu "GPU compute mode is Prohibited: no CUDA context can be made" ;;
    *Exclusive*) warnings+=("GPU compute mode is exclusive: tests run one at a time (ctest -j 1)") ;;
  esac
else
  need_gpu "nvidia-smi failed: $smi"
fi
CTEST_J=8; case "${smi:-}" in *Exclusive*) CTEST_J=1 ;; esac
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
[ -n "$SANITIZER" ] && echo "compute-sanitizer: $SANITIZER" || warnings+=("compute-sanitizer: not found (its step will not run)")
DEPS="$REPO_ROOT/.deps/root/usr"
if [ -d "$DEPS" ]; then
  lib=$(ls "$DEPS"/lib/x86_64-linux-gnu/libbenchmark.so.* 2>/dev/null | head -n 1)
  if [ -z "$lib" ]; then problems+=(".deps: no libbenchmark.so.* under $DEPS (rerun scripts/fetch_gpu_deps.sh)")
  elif missing=$(LD_LIBRARY_PATH="$DEPS/lib/x86_64-linux-gnu" ldd "$lib" 2>&1 | grep -E "not found|version .* not found"); then
    problems+=("carried Google Benchmark does not load here (glibc/libstdc++ mismatch?): $missing")
  else echo "google benchmark: $lib loads (ldd clean)"; fi
elif ! ls /usr/lib/x86_64-linux-gnu/cmake/benchmark >/dev/null 2>&1; then
  problems+=("no Google Benchmark: carry .deps (scripts/fetch_gpu_deps.sh here, device tool carry: [\".deps\"])")
fi
for w in "${warnings[@]}"; do step "warning: $w"; done
if [ ${#problems[@]} -gt 0 ]; then
  for p in "${problems[@]}"; do step "PREFLIGHT FAILED: $p"; done
  pack; exit 1
fi

# --- 1. Build --------------------------------------------------------------------------
step "configure + build ($BUILD_DIR)"
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
  step "BUILD FAILED (see build.log)"; tail -n 60 "$RESULTS/build.log"; pack; exit 1
fi
BENCH="$BUILD_DIR/bench"

# --- 2. The tests whose CUDA half only runs here (CI runs the whole suite without a GPU) --
TESTS='LadderCuda|TraceSession|bench_smoke|write_synthetic'  # LadderCuda matches LadderCudaKernels too
step "tests with CUDA rows live (ctest -R '$TESTS' -j $CTEST_J)"
limit=$(allow 120)  # (timeout 0 would mean no limit: a spent budget skips instead)
if [ "$limit" -gt 0 ]; then
  ( cd "$BUILD_DIR" && timeout "$limit" ctest --output-on-failure -j "$CTEST_J" -R "$TESTS" ) > "$RESULTS/ctest.log" 2>&1
  echo "ctest exit $?"; tail -n 15 "$RESULTS/ctest.log"
else not_run "ctest"; fi

run() {  # name, cap seconds, flags...: JSON lands under its name only if bench finished
  local name=$1 limit; limit=$(allow "$2"); shift 2
  if [ "$limit" -eq 0 ]; then not_run "bench: $name"; return; fi
  step "bench: $name (--budget_s=$limit)"
  if timeout "$(( limit + GRACE_S ))" "$BENCH" "$@" --budget_s="$limit" \
       --benchmark_out="$RESULTS/.$name.json.partial" --benchmark_out_format=json; then
    mv "$RESULTS/.$name.json.partial" "$RESULTS/$name.json"
  else
    # Not *.json, so the analysis reads only complete files; kept for a look by hand.
    step "$name did not finish (exit $?): what it wrote is kept as $name.json.partial"
    mv "$RESULTS/.$name.json.partial" "$RESULTS/$name.json.partial" 2>/dev/null
  fi
}

# --- 3. The article's table on the GPU, first ------------------------------------------
# A probe sizes the traced passes: two traced rows in one process time the tracer's start
# (the first CUPTI session in a process can stall for seconds enabling concurrent-kernel
# tracing) and stop (flush, parse, detach). Kept out of the analysis' folder (other epochs).
ITEM_CAP=150
TRACE_EPOCHS="${TRACE_EPOCHS:-}"
if [ -z "$TRACE_EPOCHS" ] && [ "$(allow 60)" -lt 30 ]; then
  TRACE_EPOCHS=200; not_run "probe (traced passes of $TRACE_EPOCHS epochs)"
elif [ -z "$TRACE_EPOCHS" ]; then
  mkdir -p "$RESULTS/probe"
  step "probe: two traced ItemSync cuda rows in one process"
  if timeout 60 "$BENCH" --benchmark_filter='^ItemSync/cuda/interval:(0|1)/print100:0/' --devices=cuda \
       --epochs=200 --warmup_epochs=10 --trace_epochs=100 --benchmark_repetitions=1 \
       --benchmark_out="$RESULTS/probe/trace_probe.json" --benchmark_out_format=json > "$RESULTS/probe/probe.log" 2>&1 &&
     TRACE_EPOCHS=$("$PY" experiments/size_traced_pass.py "$RESULTS/probe/trace_probe.json" --rows 14 \
                      --budget_s $(( ITEM_CAP / 4 )) --min 100 --max 500); then
    step "traced passes sized to $TRACE_EPOCHS epochs"
  else
    TRACE_EPOCHS=200; step "probe failed (see probe/probe.log): traced passes of $TRACE_EPOCHS epochs"
  fi
fi
export TRACE_EPOCHS
. "$REPO_ROOT/experiments/article_sweep.sh"  # after TRACE_EPOCHS: the flags read it
mkdir -p "$RESULTS/traces"
run item_sync_cuda "$ITEM_CAP" "${ITEM_SYNC_FLAGS[@]}" --devices=cuda --trace_dir="$RESULTS/traces"
# The same table on this machine's CPU: the article's comparison is CPU vs GPU on one machine.
run item_sync_cpu 60 "${ITEM_SYNC_FLAGS[@]/--trace_epochs=*/--trace_epochs=200}" --devices=cpu

# --- 4. The ladder, the primitives and what CUPTI leaves behind --------------------------
run ladder 50 "${LADDER_FLAGS[@]}" --devices=cpu,cuda
run primitives 70 "${PRIMITIVE_FLAGS[@]}" --devices=cpu,cuda
limit=$(allow 40)
if [ "$limit" -gt 0 ]; then
  step "KernelLaunch/host_launch and Sync/item_idle alone and after a CUPTI-traced pass (${limit} s)"
  timeout "$limit" "$PY" experiments/cupti_detach_check.py --bench "$BENCH" --out "$RESULTS/cupti_detach" \
    --rounds 2 --budget_s $(( limit / 5 ))
else not_run "CUPTI detach check"; fi
limit=$(allow 45)
if [ "$limit" -gt 0 ]; then
  step "python eager rung + torch.profiler kernel count (${limit} s)"
  timeout "$limit" "$PY" experiments/python_eager.py "${PYTHON_EAGER_FLAGS[@]}" \
    --devices=cpu,cuda --profile-kernels --out "$RESULTS/python_eager.json"
else not_run "python eager rung"; fi

# --- 5. compute-sanitizer on the hand-written kernels ------------------------------------
limit=$(allow 70)
if [ -z "$SANITIZER" ]; then step "compute-sanitizer NOT RUN: not found"
elif [ "$limit" -le 0 ]; then not_run "compute-sanitizer"
else
  step "compute-sanitizer on the hand-written kernels (${limit} s)"
  ( export IRIS_LADDER_TEST_EPOCHS=200
    timeout "$(( limit * 5 / 10 ))" "$SANITIZER" --tool memcheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
      --gtest_filter='*LadderCuda*fused_step_kernel*:*LadderCuda*persistent_kernel*'
    echo "memcheck exit $?"
    timeout "$(( limit * 3 / 10 ))" "$SANITIZER" --tool racecheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
      --gtest_filter='*LadderCuda*persistent_kernel*'
    echo "racecheck exit $?"
    timeout "$(( limit * 2 / 10 ))" "$SANITIZER" --tool synccheck --error-exitcode 3 "$BUILD_DIR/tests/unit_tests" \
      --gtest_filter='*LadderCuda*persistent_kernel*'
    echo "synccheck exit $?" ) > "$RESULTS/compute_sanitizer.log" 2>&1
  tail -n 6 "$RESULTS/compute_sanitizer.log"
  # The exit codes also count API errors raised inside LibTorch or cuBLAS: name each
  # finding's kernel, so a failure is read against our kernels only when it is theirs.
  "$PY" scripts/sanitizer_findings.py "$RESULTS/compute_sanitizer.log" | tee "$RESULTS/compute_sanitizer_findings.txt"
fi

# --- 5b. Every rung against the batch on CUDA, and torch.compile with CUDA graphs --------
run rung_sweep_cuda 60 "${RUNG_SWEEP_FLAGS[@]/--sweep_batches=*/--sweep_batches=120,10000,1000000}" --devices=cuda
limit=$(allow 90)
if [ "$limit" -gt 0 ]; then
  step "torch.compile rung, mode=reduce-overhead on cuda (${limit} s)"
  timeout "$limit" "$PY" experiments/torch_compile.py "${TORCH_COMPILE_FLAGS[@]}" --repetitions 2 \
    --batches 1000000 --devices=cuda --out "$RESULTS/torch_compile.json"  # 2 compiles fit the cap
else not_run "torch.compile rung"; fi

# --- 6. What is left: the batch sweep ----------------------------------------------------
run batch_sweep 100 "${BATCH_SWEEP_FLAGS[@]}" --devices=cpu,cuda

step "analysis"
"$PY" -m analysis.report "$RESULTS" --machine "$MACHINE" | tee "$RESULTS/table.txt"
pack
