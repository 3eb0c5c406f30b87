#!/usr/bin/env bash
# THE prepared GPU script, for the device tool's H200 (docs/gpu-run.md: the two calls).
#
#   scripts/gpu_check.sh OUT_DIR [--part 1|2|all | --steps NAME,NAME,...]
#
# Part 1, the first call: preflight, bench's build, then (a) the article's table on the GPU
# (ItemSync cuda, 20000 epochs, every interval x print100, one repetition, its traced passes)
# and on this machine's CPU, (b) the primitives, (c) the ladder's CUDA rungs with their float64
# checks; then part 2's steps while the budget lasts. Part 2, the second call (the rerun slot):
# (d) the batch crossover, (e) the CUDA tests and compute-sanitizer, then the rest. --steps runs
# the named ones (the end of each run prints the command for what it left out).
# scripts/gpu_plan.py holds the steps, their order and each one's estimate on the GPU machine; the
# plan is printed first. A step starts only if the budget left covers it (bench steps: 20 s, and
# bench's --budget_s skips the rows that would start after the budget); each is stopped at
# CAP_FACTOR x its estimate. After every step its results are packed into OUT_DIR, so a run cut
# at the device tool's limit still returns everything done before the cut.
# CUPTI teardown and CUDA-graph capture never share a process: PyTorch turns CUPTI teardown off
# once CUDA graphs are used, citing a crash on re-initialisation after teardown (the comment beside
# _TorchCompileInductorWrapper in torch/__init__.py). So Dispatch (a CUPTI kernel count) runs
# apart from KernelLaunch/Sync/Memcpy (graph_node captures a graph), and the traced ItemSync rows
# apart from the ladder and the rung sweep.
#
# Uses the machine's python3 (torch 2.11 = LibTorch, numpy, scipy, matplotlib, pytest), its
# CMake/ninja/nvcc, and what scripts/fetch_gpu_deps.sh carries in .deps (Google Benchmark,
# GoogleTest, simdjson, zlib's headers; zlib's library is the machine's libz.so.1).
# OUT_DIR gets (within the device tool's limits: 8 files, 16 MiB each):
#   gpu_check.log                 everything printed
#   results-<machine>.tar.gz      results/<machine>/ (JSON, logs, steps-<part>.tsv; REPORT.md)
# Unpack it at the repository root and commit results/<machine>/ (docs/gpu-run.md).
# Env: PYTHON (python3), MACHINE, BUDGET_S (part 1: 420, part 2 and --steps: 210, all: 900), CAP_FACTOR (3),
# GRACE_S (30), GPU_BUILD_DIR (build-gpu), IRIS_GIT_COMMIT (the commit, when the copy has no
# .git), ALLOW_NO_GPU=1 (a CPU dry run, scripts/device_rehearsal.sh: what needs a GPU warns).
set -uo pipefail
OUT_DIR="${1:?usage: scripts/gpu_check.sh OUT_DIR [--part 1|2|all | --steps NAME,...]}"
shift
PART=1 STEPS_ARG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --part) PART="${2:-}"; shift 2 ;;
    --steps) STEPS_ARG="${2:-}"; PART=custom; shift 2 ;;
    *) echo "gpu_check: unknown argument '$1': expected --part 1|2|all or --steps NAME,..." >&2; exit 2 ;;
  esac
done
case "$PART" in 1|2|all|custom) ;; *) echo "gpu_check: --part: expected 1, 2 or all, got '$PART'" >&2; exit 2 ;; esac
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
exec > >(tee "$OUT_DIR/gpu_check.log") 2>&1
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"
T0=$(date +%s)
step() { say "[$(( $(date +%s) - T0 ))s] $*"; }

PY="${PYTHON:-python3}"
# A build folder of its own: this configures against the machine's python3 and torch with
# IRIS_WITH_CUDA=ON, while build/ (setup.sh's) is configured against the cached venv.
BUILD_DIR="${GPU_BUILD_DIR:-$REPO_ROOT/build-gpu}"
BENCH="$BUILD_DIR/bench"
MACHINE="${MACHINE:-$(machine_name)}"
RESULTS="$REPO_ROOT/results/$MACHINE"
mkdir -p "$RESULTS"
case "$PART" in 1) dflt=420 ;; 2|custom) dflt=210 ;; *) dflt=900 ;; esac
BUDGET_S="${BUDGET_S:-$dflt}" CAP_FACTOR="${CAP_FACTOR:-3}" GRACE_S="${GRACE_S:-30}"
ANALYSIS_S=20  # kept at the end for the report and the tarball (scripts/gpu_plan.py ANALYSIS_S)
LABEL=$([ "$PART" = custom ] && echo custom || echo "part$PART")
STEPS_TSV="$RESULTS/steps-$LABEL.tsv"
COMMIT="${IRIS_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"
export IRIS_GIT_COMMIT="$COMMIT"  # bench's context names it when the copy has no .git
# How the runs are sized (experiments/article_sweep.sh reads these): one repetition of the
# article's table and the ladder; 2 of the primitives and the sweeps; 50-epoch sweeps.
export REPETITIONS=1 PRIMITIVE_REPETITIONS=2 SWEEP_REPETITIONS=2 SWEEP_EPOCHS=50

left() { echo $(( BUDGET_S - ANALYSIS_S - ($(date +%s) - T0) )); }
pack() {  # into OUT_DIR after every step: a cut run returns all that was done before the cut
  local tmp="$OUT_DIR/.results-$MACHINE.tar.gz.tmp"
  tar -czf "$tmp" -C "$REPO_ROOT" "results/$MACHINE" && mv "$tmp" "$OUT_DIR/results-$MACHINE.tar.gz"
  local mb=$(( $(stat -c %s "$OUT_DIR/results-$MACHINE.tar.gz") / 1048576 ))
  [ "$mb" -lt 16 ] || step "WARNING: results-$MACHINE.tar.gz is $mb MiB: over the 16 MiB a file may have to come back"
}
printf 'step\tstatus\tseconds\testimate_s\tnote\n' > "$STEPS_TSV"
record() {  # step, status (ran | not-run | cut | failed), seconds, estimate, note
  printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$STEPS_TSV"
}

# --- 0. Preflight: every tool this run needs, or a readable reason to stop now ----------
step "machine: $MACHINE; commit $COMMIT; part $PART; budget ${BUDGET_S} s; preflight"
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
# What .deps carries (scripts/fetch_gpu_deps.sh) must be what this commit's list asks for, and
# every carried shared library must load here.
DEPS="$REPO_ROOT/.deps/root/usr"
DEPS_LIB="$DEPS/lib/x86_64-linux-gnu"
if [ ! -d "$DEPS" ]; then
  problems+=("no .deps: run scripts/fetch_gpu_deps.sh here and name .deps in the device call's carry")
else
  want=$(scripts/fetch_gpu_deps.sh --list | tr '\n' ' ')
  have=$(cut -d' ' -f1 "$REPO_ROOT/.deps/packages.txt" 2>/dev/null | tr '\n' ' ')
  [ "$want" = "$have" ] || problems+=(".deps carries '$have' but scripts/fetch_gpu_deps.sh lists '$want': rerun it here")
  for lib in "$DEPS_LIB"/*.so.*; do
    [ -e "$lib" ] || continue
    if missing=$(LD_LIBRARY_PATH="$DEPS_LIB" ldd "$lib" 2>&1 | grep -E "not found"); then
      problems+=("carried $(basename "$lib") does not load here (glibc/libstdc++ mismatch?): $missing")
    fi
  done
  echo "carried: $have($(du -sh "$REPO_ROOT/.deps" | cut -f1)); their libraries load"
fi
# zlib's headers are carried, its library is the machine's own (trace_lib.cmake links libz.so.1).
zlib=$( (ldconfig -p 2>/dev/null | grep -m1 'libz\.so\.1 ' | sed 's/.*=> //') || true)
[ -n "$zlib" ] || zlib=$(ls /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 /usr/lib64/libz.so.1 2>/dev/null | head -n 1)
[ -n "$zlib" ] && echo "zlib: $zlib" || problems+=("no libz.so.1 on this machine (the trace library links the machine's zlib)")
# The plan, from scripts/gpu_plan.py: which steps, in which order, each one's estimate.
if [ "$PART" = custom ]; then
  STEPS=$(tr ',' ' ' <<< "$STEPS_ARG")
  for s in $STEPS; do "$PY" scripts/gpu_plan.py --estimate "$s" > /dev/null || problems+=("--steps: no step '$s'"); done
  "$PY" scripts/gpu_plan.py --part all --budget_s "$BUDGET_S" | grep -E "^plan|^  step|$(sed 's/ /|/g; s/^/^  (/; s/$/) /' <<< "$STEPS")"
else
  STEPS=$("$PY" scripts/gpu_plan.py --names --part "$PART" | grep -v -x -E 'preflight') || problems+=("scripts/gpu_plan.py failed")
  "$PY" scripts/gpu_plan.py --part "$PART" --budget_s "$BUDGET_S"
fi
for w in "${warnings[@]}"; do step "warning: $w"; done
if [ ${#problems[@]} -gt 0 ]; then
  for p in "${problems[@]}"; do step "PREFLIGHT FAILED: $p"; done
  record preflight failed $(( $(date +%s) - T0 )) 15 "$(printf '%s; ' "${problems[@]}")"
  pack; exit 1
fi
record preflight ran $(( $(date +%s) - T0 )) 15 "$(printf '%s; ' "${warnings[@]}")"

# --- the steps ----------------------------------------------------------------------------
NOTE=""  # a step's one-line note for steps.tsv (why it did not run, what it found)
bench_json() {  # name, limit seconds, flags...: JSON lands under its name only if bench finished
  local name=$1 limit=$2 rc; shift 2
  timeout "$(( limit + GRACE_S ))" "$BENCH" "$@" --budget_s="$limit" \
    --benchmark_out="$RESULTS/.$name.json.partial" --benchmark_out_format=json
  rc=$?
  if [ $rc -eq 0 ]; then mv "$RESULTS/.$name.json.partial" "$RESULTS/$name.json"
  else  # not *.json, so the analysis reads only complete files; kept for a look by hand
    mv "$RESULTS/.$name.json.partial" "$RESULTS/$name.json.partial" 2>/dev/null
    NOTE="bench exit $rc: what it wrote is kept as $name.json.partial"
  fi
  return $rc
}
configure() {
  [ -f "$BUILD_DIR/build.ninja" ] && return 0  # a warm machine's second call: configured already
  local prefix
  prefix="$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')" || return 1
  # The carried packages' CMake configs (lib/<triplet>/cmake/<name>/, named as a prefix too:
  # not every distro searches lib/<triplet>), libraries and headers, found like the machine's.
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix;$DEPS;$DEPS_LIB/cmake" -DCMAKE_LIBRARY_PATH="$DEPS_LIB" \
        -DCMAKE_INCLUDE_PATH="$DEPS/include" -DPython3_EXECUTABLE="$(command -v "$PY")" -DIRIS_WITH_CUDA=ON
}
build() {  # targets...; the compiler's CPU seconds go to the note (gpu_plan.py's build estimate)
  local log="$RESULTS/build.log"
  ( configure && cmake --build "$BUILD_DIR" -j "$(cores)" ${1:+--target "$@"}; rc=$?; times > "$RESULTS/.times"; exit $rc ) >> "$log" 2>&1
  local rc=$?
  local cpu; cpu=$(tail -n 1 "$RESULTS/.times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
  rm -f "$RESULTS/.times"
  NOTE="compiler CPU ${cpu} s (user+sys) on $(cores) cores"
  grep -h "iris: CUDA parts" "$log" | tail -n 1
  if [ $rc -ne 0 ]; then
    step "BUILD FAILED (build.log):"; grep -E "CMake Error|error:|Could NOT find|Could not find" "$log" | head -n 20; tail -n 30 "$log"
  fi
  return $rc
}
step_build_bench() { build bench; }
step_build_tests() { build; }
ITEM_FLAGS() { . "$REPO_ROOT/experiments/article_sweep.sh"; }  # re-read: TRACE_EPOCHS changes them
step_probe() {
  # Two traced rows in one process time the tracer's start (the first CUPTI session in a process
  # can stall for seconds enabling concurrent-kernel tracing) and stop (flush, parse, detach);
  # scripts/gpu_plan.py's traced-pass budget is shared by every traced pass that will run.
  mkdir -p "$RESULTS/probe"  # out of the analysis' folder: other epochs
  TRACE_EPOCHS=200 ITEM_FLAGS
  local passes; passes=$("$BENCH" --benchmark_list_tests "${ITEM_SYNC_FLAGS[@]}" --devices=cuda | grep -c '^ItemSync/')
  passes=$(( passes * REPETITIONS ))  # a traced pass follows every timed run of every row
  local budget; budget=$("$PY" -c 'import sys; sys.path.insert(0, "scripts"); import gpu_plan; print(gpu_plan.TRACED_BUDGET_S)')
  timeout "$1" "$BENCH" --benchmark_filter='^ItemSync/cuda/interval:(0|1)/print100:0/' --devices=cuda \
       --epochs=200 --warmup_epochs=10 --trace_epochs=100 --benchmark_repetitions=1 \
       --benchmark_out="$RESULTS/probe/trace_probe.json" --benchmark_out_format=json > "$RESULTS/probe/probe.log" 2>&1 || {
    NOTE="probe failed (probe/probe.log): traced passes of 200 epochs"; return 1; }
  local e
  if e=$("$PY" experiments/size_traced_pass.py "$RESULTS/probe/trace_probe.json" --rows "$passes" \
           --budget_s "$budget" --min 100 --max 500 2>>"$RESULTS/probe/probe.log"); then
    echo "$e" > "$RESULTS/probe/trace_epochs"
    NOTE="$passes traced passes sized to $e epochs within $budget s"; step "$NOTE"
  else
    NOTE="no traced row in the probe (no GPU?): traced passes of 200 epochs"; step "$NOTE"
  fi
}
trace_epochs() { cat "$RESULTS/probe/trace_epochs" 2>/dev/null || echo 200; }
step_item_sync_cuda() {
  TRACE_EPOCHS=$(trace_epochs) ITEM_FLAGS
  mkdir -p "$RESULTS/traces"
  bench_json item_sync_cuda "$1" "${ITEM_SYNC_FLAGS[@]}" --devices=cuda --trace_dir="$RESULTS/traces"
}
step_item_sync_cpu() {  # the article's comparison is CPU vs GPU on one machine
  TRACE_EPOCHS=200 ITEM_FLAGS
  bench_json item_sync_cpu "$1" "${ITEM_SYNC_FLAGS[@]}" --devices=cpu
}
step_replay_validation() {  # issue #22 item 6: the interval-1 traced pass predicts the rows that log less often
  ls "$RESULTS"/traces/ItemSync_*_interval-1_print100-0_batch-120.trace.json > /dev/null 2>&1 || {
    NOTE="no traced ItemSync interval-1 pass in $RESULTS/traces (item_sync_cuda traces it on a GPU)"; return 3; }
  build attribute || return 1
  BUILD_DIR="$BUILD_DIR" timeout "$1" experiments/replay_validation.sh "$RESULTS"  # the report puts them beside the measured rows
}
# PRIMITIVE_FLAGS with another filter: bench_with_filter name limit filter [flags...]
bench_with_filter() {
  local name=$1 limit=$2 f=$3; shift 3
  ITEM_FLAGS
  bench_json "$name" "$limit" "${PRIMITIVE_FLAGS[@]/--benchmark_filter=*/--benchmark_filter=$f}" "$@"
}
step_dispatch() {  # its CUDA train_step counts kernels with CUPTI: alone in its process
  bench_with_filter dispatch "$1" '^Dispatch/' --devices=cpu,cuda
}
step_primitives() {  # launch, graph node, sync, .item() idle, the copies the loop makes + 1 MiB
  bench_with_filter primitives "$1" '^(KernelLaunch|Sync)/|^Memcpy/[^/]+/bytes:(4|1048576)/' --devices=cuda
}
step_memcpy_sweep() {
  bench_with_filter memcpy_sweep "$1" '^Memcpy/[^/]+/bytes:(1024|65536|16777216|268435456)/' --devices=cuda
}
# The CUDA rungs' float64 checks on the GPU: the same bounds as tests/cpp/test_ladder.cpp's.
check_ladder_errors() {
  "$PY" - "$RESULTS/$1.json" "$([ "${ALLOW_NO_GPU:-0}" = 1 ] && echo may-skip || echo need-rows)" <<'EOF'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["benchmarks"] if r.get("run_type") != "aggregate"]
bad = [f"{r['name']}: loss {r['max_loss_error']:.1e}, weights {r['max_weight_error']:.1e}" for r in rows
       if not r.get("error_occurred") and not (r["max_loss_error"] < 1e-3 and r["max_weight_error"] < 1e-3)]
ran = [r for r in rows if not r.get("error_occurred")]
print(f"float64 check: {len(ran)} rows ran, {len(bad)} off by more than 1e-3" + "".join(f"\n  OFF: {b}" for b in bad))
# With a GPU, a check of no rows proves nothing: every CUDA rung must have run.
need = sys.argv[2] == "need-rows"
if need and not ran:
    print("float64 check: no CUDA rung ran: " + "; ".join(sorted({r.get('error_message', '') for r in rows})))
sys.exit(1 if bad or (need and not ran) else 0)
EOF
}
step_ladder_cuda() {
  local f='^Ladder/cuda-' out rc
  ITEM_FLAGS
  bench_json ladder_cuda "$1" "${LADDER_FLAGS[@]/--benchmark_filter=*/--benchmark_filter=$f}" --devices=cuda || return
  out=$(check_ladder_errors ladder_cuda); rc=$?
  echo "$out"; NOTE=$(tr '\n' ' ' <<< "$out")
  return $rc
}
step_ladder_cpu() {
  local f='^(Ladder/cpu-|Peak/)'
  ITEM_FLAGS
  bench_json ladder_cpu "$1" "${LADDER_FLAGS[@]/--benchmark_filter=*/--benchmark_filter=$f}" --devices=cpu
}
step_batch_sweep() {
  ITEM_FLAGS
  bench_json batch_sweep "$1" "${BATCH_SWEEP_FLAGS[@]}" --devices=cpu,cuda
}
step_cuda_tests() {  # the tests whose CUDA half runs only here (CI runs them all without a GPU)
  local tests='LadderCuda|TraceSession|CuptiRecords|bench_smoke|write_synthetic' rc
  rm -rf "$BUILD_DIR/test-reports"  # tests/skip_summary.py reads this run's reports only
  ( cd "$BUILD_DIR" && timeout "$1" ctest --output-on-failure -j "$CTEST_J" -R "$tests" ) > "$RESULTS/ctest.log" 2>&1
  rc=$?
  tail -n 15 "$RESULTS/ctest.log"
  "$PY" tests/skip_summary.py "$BUILD_DIR" | tee -a "$RESULTS/ctest.log"
  NOTE=$(grep -E "tests passed|tests failed" "$RESULTS/ctest.log" | tail -n 1)
  return $rc
}
step_compute_sanitizer() {
  if [ -z "$SANITIZER" ]; then NOTE="compute-sanitizer not found on this machine"; return 3; fi
  local limit=$1
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
  # The exit codes also count API errors raised inside LibTorch or cuBLAS: name each finding's
  # kernel, so a failure is read against our kernels only when it is theirs.
  "$PY" scripts/sanitizer_findings.py "$RESULTS/compute_sanitizer.log" | tee "$RESULTS/compute_sanitizer_findings.txt"
  NOTE=$(grep -E "^(memcheck|racecheck|synccheck) exit" "$RESULTS/compute_sanitizer.log" | tr '\n' ' ')
}
step_cupti_detach() {
  timeout "$1" "$PY" experiments/cupti_detach_check.py --bench "$BENCH" --out "$RESULTS/cupti_detach" \
    --rounds 2 --budget_s $(( $1 / 5 ))
}
step_python_eager() {
  ITEM_FLAGS
  timeout "$1" "$PY" experiments/python_eager.py "${PYTHON_EAGER_FLAGS[@]}" --repetitions 2 \
    --devices=cpu,cuda --profile-kernels --out "$RESULTS/python_eager.json"
}
step_rung_sweep_cuda() {  # every rung against the batch on CUDA (a CUDA graph rung: no CUPTI here)
  ITEM_FLAGS
  bench_json rung_sweep_cuda "$1" "${RUNG_SWEEP_FLAGS[@]/--sweep_batches=*/--sweep_batches=120,10000,1000000}" --devices=cuda
}
step_torch_compile() {  # 2 compiles fit the cap
  ITEM_FLAGS
  timeout "$1" "$PY" experiments/torch_compile.py "${TORCH_COMPILE_FLAGS[@]}" --repetitions 2 \
    --batches 1000000 --devices=cuda --out "$RESULTS/torch_compile.json"
}
step_nsys() {  # the timeline with CUDA rows under our phases; its files go into the results tarball
  timeout "$1" scripts/gpu_nsys.sh "$RESULTS/nsys" > "$RESULTS/nsys.log" 2>&1
  local rc=$?
  tail -n 5 "$RESULTS/nsys.log"
  # No nsys anywhere it looks (the rehearsal's root has none): not run, with why, not a failure.
  if [ $rc -ne 0 ] && grep -q "error: no nsys on this machine" "$RESULTS/nsys.log"; then
    NOTE="$(grep -m1 'error: no nsys' "$RESULTS/nsys.log" | sed 's/.*error: //')"; return 3
  fi
  return $rc
}

run_step() {  # name: starts it if the budget covers it, records how it went, packs
  local name=$1 est limit l t rc need
  est=$("$PY" scripts/gpu_plan.py --estimate "$name")
  l=$(left)
  case "$name" in build_*|probe) need=$est ;; item_sync_*|dispatch|primitives|memcpy_sweep|ladder_*|batch_sweep|rung_sweep_*) need=20 ;; *) need=$est ;; esac
  if [ "$l" -lt "$need" ]; then
    step "$name NOT RUN: needs ~$est s, $l s of the ${BUDGET_S} s budget left"
    record "$name" not-run 0 "$est" "budget: needs ~$est s, $l s left"
    return
  fi
  limit=$(( CAP_FACTOR * est )); [ "$limit" -ge 60 ] || limit=60; [ "$limit" -le "$l" ] || limit=$l
  step "$name (estimate $est s, stopped at $limit s)"
  NOTE=""; t=$(date +%s)
  "step_$name" "$limit"
  rc=$?
  t=$(( $(date +%s) - t ))
  case $rc in
    0) record "$name" ran "$t" "$est" "$NOTE" ;;
    3) record "$name" not-run "$t" "$est" "$NOTE"; step "$name NOT RUN: $NOTE" ;;
    124|137) record "$name" cut "$t" "$est" "stopped at $limit s; $NOTE"; step "$name CUT at $limit s" ;;
    *) record "$name" failed "$t" "$est" "exit $rc; $NOTE"; step "$name FAILED (exit $rc) $NOTE" ;;
  esac
  pack
}

tried() { awk -F'\t' -v s="$1" '$1 == s { found = 1 } END { exit !found }' "$STEPS_TSV"; }
for s in $STEPS; do
  case "$s" in
    build_bench|build_tests) run_step "$s" ;;
    *) # a step whose binaries are missing (part 2 or --steps on a fresh machine) builds them first
       [ -x "$BENCH" ] || tried build_bench || run_step build_bench
       case "$s" in cuda_tests|compute_sanitizer)
         [ -x "$BUILD_DIR/tests/unit_tests" ] || tried build_tests || run_step build_tests ;;
       esac
       if [ -x "$BENCH" ]; then run_step "$s"
       else record "$s" not-run 0 "$("$PY" scripts/gpu_plan.py --estimate "$s")" "bench did not build"; fi ;;
  esac
done

step "analysis"
t=$(date +%s)
if ! ls "$RESULTS"/item_sync_*.json > /dev/null 2>&1; then
  # The report is built around the article's table: a part 2 or --steps run without it (the
  # rehearsal of part 2 failed here) leaves the report to the union of both parts' results,
  # made after unpacking them (docs/gpu-run.md).
  record analysis not-run 0 "$ANALYSIS_S" "no ItemSync results in this run: the report is made from both parts' results once unpacked"
  step "analysis NOT RUN: no ItemSync results in this run (the report is made from both parts once unpacked)"
elif "$PY" -m analysis.report "$RESULTS" --machine "$MACHINE" > "$RESULTS/table.txt" 2>&1; then
  record analysis ran $(( $(date +%s) - t )) "$ANALYSIS_S" "REPORT.md"
  cat "$RESULTS/table.txt"
else
  record analysis failed $(( $(date +%s) - t )) "$ANALYSIS_S" "$(tail -n 1 "$RESULTS/table.txt")"
  cat "$RESULTS/table.txt"
fi
pack

echo
step "steps (seconds here; estimate for the GPU machine from scripts/gpu_plan.py):"
column -t -s $'\t' "$STEPS_TSV" 2>/dev/null || cat "$STEPS_TSV"
rest=$(awk -F'\t' 'NR > 1 && ($2 == "cut" || ($2 == "not-run" && $5 ~ /^budget/)) { print $1 }' "$STEPS_TSV" | paste -sd, -)
[ -z "$rest" ] || step "left out; the rerun slot's command: scripts/gpu_check.sh \$OUT --steps $rest"
step "done: unpack $OUT_DIR/results-$MACHINE.tar.gz at the repository root (docs/gpu-run.md)"
! awk -F'\t' '$2 == "failed" { bad = 1 } END { exit !bad }' "$STEPS_TSV"
