#!/usr/bin/env bash
# The main job: set up, run the article's experiment on the CPU and (when one is usable)
# the GPU, print the article's table beside ours, and write results/<machine>/ (bench JSON,
# REPORT.md, plots). The sweeps are experiments/sweeps.toml's; the environment variables of its
# [env] table (EPOCHS, REPETITIONS, SWEEP_EPOCHS, ...) change them. Also: MACHINE (results
# folder name), SKIP_BATCH_SWEEP=1.
# Every result file ends world-readable. A results folder that is committed in git is said to
# be overwritten before anything runs (MACHINE=another-name writes elsewhere).
set -euo pipefail
. "$(dirname "$0")/common.sh"
"$REPO_ROOT/scripts/setup.sh"
for family in item_sync paired batch_sweep ladder rung_sweep primitives python_eager torch_compile; do
  sweep_flags "${family^^}_FLAGS" "$family" || die "experiments/sweeps.toml: see the message above"
done
cd "$REPO_ROOT"

MACHINE="${MACHINE:-$(machine_name)}"
OUT_DIR="$REPO_ROOT/results/$MACHINE"
if git -C "$REPO_ROOT" ls-files --error-unmatch "results/$MACHINE" >/dev/null 2>&1; then
  say "results/$MACHINE/ holds committed results: this run REPLACES its JSON, REPORT.md and plots, each" \
      "file when its step finishes ('git diff --stat results/$MACHINE' shows what changed afterwards," \
      "'git checkout -- results/$MACHINE' brings the committed ones back; MACHINE=other-name writes elsewhere)"
fi
mkdir -p "$OUT_DIR"
if .venv/bin/python -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  DEVICES=cpu,cuda
else
  DEVICES=cpu
  say "no usable GPU here: running the CPU rows only (the report marks GPU figures pending)"
fi

# bench writes its JSON as it goes; it lands under its final name only when bench succeeds,
# so an interrupted run never replaces an earlier complete result.
run_bench() {  # name, flags...
  local name=$1; shift
  local tmp="$OUT_DIR/.$name.json.partial"
  say "running $name on $DEVICES (progress below, one line per finished run)"
  ./bench "$@" --devices="$DEVICES" --benchmark_out="$tmp" --benchmark_out_format=json
  mv "$tmp" "$OUT_DIR/$name.json"
  say "wrote results/$MACHINE/$name.json"
}

say "each bench run prints Google Benchmark's '***WARNING*** Library was built as DEBUG': it is about" \
    "Debian's libbenchmark, not bench; the loop times are manual times, unaffected (docs/experiment.md, Running bench yourself)"
mkdir -p "$OUT_DIR/traces"
run_bench item_sync "${ITEM_SYNC_FLAGS[@]}" --trace_dir="$OUT_DIR/traces"
say "the replay's predictions for the rows that log less often (./attribute on the traced pass)"
experiments/replay_validation.sh "$OUT_DIR" ||
  say "the replay's check skipped: no traced every-epoch row (TRACE_EPOCHS=0?); the report says so"
run_bench paired "${PAIRED_FLAGS[@]}"
[ "${SKIP_BATCH_SWEEP:-0}" = 1 ] || run_bench batch_sweep "${BATCH_SWEEP_FLAGS[@]}"
run_bench ladder "${LADDER_FLAGS[@]}"
run_bench rung_sweep "${RUNG_SWEEP_FLAGS[@]}"
run_bench primitives "${PRIMITIVES_FLAGS[@]}"
say "running the Python eager rung"
.venv/bin/python -m experiments.python_eager "${PYTHON_EAGER_FLAGS[@]}" --devices="$DEVICES" --out "$OUT_DIR/python_eager.json"
say "running the torch.compile rung (compiles first: ~1 min per configuration)"
.venv/bin/python -m experiments.torch_compile "${TORCH_COMPILE_FLAGS[@]}" --devices="$DEVICES" --out "$OUT_DIR/torch_compile.json"

say "the article's table beside ours, the model and the report"
.venv/bin/python -m analysis.report "$OUT_DIR" --machine "$MACHINE" | tee "$OUT_DIR/table.txt.partial"
mv "$OUT_DIR/table.txt.partial" "$OUT_DIR/table.txt"
chmod -R a+rX "$OUT_DIR"   # result files are for every reader, whatever the umask
say "done: results/$MACHINE/REPORT.md"
