#!/usr/bin/env bash
# THE prepared GPU script, for the device tool's H200 (docs/gpu-run.md: the two calls).
#
#   scripts/gpu_check.sh OUT_DIR [--part 1|2|all | --steps NAME,NAME,...]
#
# Part 1, the first call: preflight, bench's build and the traced passes' probe, a wait for the
# host to settle, then the Paired CUDA rows first (Paired/cuda-item: one .item()'s and one
# epoch's cost from short interleaved runs), the primitives at 5 repetitions, the Paired
# held-out and replay rows, and Paired/cuda-item again in a second time window; then part 2's
# steps while the budget lasts. Part 2, the second call (the rerun slot): the article's table
# rows and its every-epoch run as whole runs, 3 repetitions interleaved, then the rest by value
# (the what-if pairs of the article's loop, the Python rungs, the other ItemSync rows with their
# traced passes, the CPU, the ladder, the crossover, the tests). --steps runs the named ones (the
# end of each run prints the command for what it left out).
# This script checks the machine (the preflight: every tool the run needs, or a readable reason
# to stop now) and hands over to `python -m scripts.gpu_run`, which prints the plan (scripts/gpu_plan.py),
# runs its steps (scripts/gpu_steps.py: each only if the budget left covers it, stopped at
# CAP_FACTOR x its estimate, results packed into OUT_DIR after every step) and makes the report.
# The runs' sizes are experiments/sweeps.toml's with its [gpu] changes.
#
# Uses the machine's python3 (torch 2.11 = LibTorch, numpy, scipy, matplotlib, pytest), its
# CMake/ninja/nvcc, and what scripts/fetch_gpu_deps.sh carries in .deps (Google Benchmark,
# GoogleTest, simdjson, zlib's headers; zlib's library is the machine's libz.so.1).
# OUT_DIR gets (within the device tool's limits: 8 files, 16 MiB each):
#   gpu_check.log                 everything printed
#   results-<machine>.tar.gz      results/<machine>/ (JSON, logs, steps-<part>.tsv; REPORT.md)
# Unpack it at the repository root and commit results/<machine>/ (docs/gpu-run.md).
# Env: PYTHON (python3), MACHINE, BUDGET_S (part 1: 420, part 2 and --steps: 210, all: 900), CAP_FACTOR (3),
# GRACE_S (30), GPU_BUILD_DIR (build-gpu), IRIS_GIT_COMMIT (the commit the tree was sent from:
# recorded over the copy's .git, which may not match it), ALLOW_NO_GPU=1 (a CPU dry run,
# scripts/device_rehearsal.sh: what needs a GPU warns).
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
MACHINE="${MACHINE:-$(machine_name)}"
RESULTS="$REPO_ROOT/results/$MACHINE"
mkdir -p "$RESULTS"
# The commit as the caller states it: the device tool's copy may carry a .git whose HEAD is not
# the tree it sent (bench and python_eager.py record a stated commit over their own git's).
COMMIT="${IRIS_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"

# --- 0. Preflight: every tool this run needs, or a readable reason to stop now ----------
step "machine: $MACHINE; commit $COMMIT; part $PART; budget ${BUDGET_S:-(the part default)} s; preflight"
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
if ! "$PY" -c 'import torch, pytest, numpy, scipy, matplotlib, tomllib; print("python:", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'; then
  problems+=("$PY: cannot import torch, pytest, numpy, scipy, matplotlib and tomllib (Python >= 3.11)")
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

# --- the plan's steps, in Python -------------------------------------------------------------
PREFLIGHT=$(mktemp -d)  # what it found, for the runner's steps.tsv
printf '%s\n' "${problems[@]}" > "$PREFLIGHT/problems"
printf '%s\n' "${warnings[@]}" > "$PREFLIGHT/warnings"
echo $(( $(date +%s) - T0 )) > "$PREFLIGHT/seconds"
export PYTHON="$PY" MACHINE GPU_BUILD_DIR="$BUILD_DIR" GPU_CHECK_T0="$T0" SANITIZER CTEST_J
[ -n "${IRIS_GIT_COMMIT:-}" ] && export IRIS_GIT_COMMIT  # stated: bench's context records it
if [ "$PART" = custom ]; then plan=(--steps "$STEPS_ARG"); else plan=(--part "$PART"); fi
"$PY" -m scripts.gpu_run "$OUT_DIR" "${plan[@]}" --preflight "$PREFLIGHT"
rc=$?
rm -rf "$PREFLIGHT"
exit $rc
