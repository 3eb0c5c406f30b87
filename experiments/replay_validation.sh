#!/usr/bin/env bash
# Predict the ItemSync rows that log less often from the traced pass of the
# row that logs every epoch. For each device with a traced pass in RESULTS_DIR/traces/
# (bench --trace_dir), replays ItemSync_<device>_interval-1_print100-0_batch-120.trace.json
# with the `log` phase (the .item() and the append: what logging every N epochs removes) kept
# every 100 and 1000 epochs, or never, and writes RESULTS_DIR/replay/validation-<device>.json.
# analysis/replay_prediction.py puts the predictions beside the measured rows in REPORT.md
# (python -m analysis.report RESULTS_DIR). Cost: under a second per device (5 traced epochs).
# Usage: experiments/replay_validation.sh RESULTS_DIR   (from the repository root, ./attribute built)
set -euo pipefail
results="${1:?usage: experiments/replay_validation.sh RESULTS_DIR}"
cd "$(dirname "$0")/.."
mkdir -p "$results/replay"
# The replayed points are experiments/sweeps.toml's paired.replay_intervals (0 = never), the
# intervals the Paired rows measure against interval 1.
points=$(python3 -m experiments.sweeps get paired.replay_intervals | sed 's/\b0\b/never/g')
found=0
for device in cpu cuda; do
  trace="$results/traces/ItemSync_${device}_interval-1_print100-0_batch-120.trace.json"
  [ -f "$trace" ] || continue
  found=1
  ./attribute --quiet --json "$results/replay/validation-$device.json" \
    --what-if "log-every=1,$points:op=log" "$trace"
  echo "wrote $results/replay/validation-$device.json"
done
if [ "$found" = 0 ]; then
  echo "replay_validation: no ItemSync_<device>_interval-1_print100-0_batch-120.trace.json in $results/traces" >&2
  exit 2
fi
