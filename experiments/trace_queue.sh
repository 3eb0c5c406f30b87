#!/usr/bin/env bash
# The launch queue of bench's CUDA traces, for runs whose traced passes predate bench's own
# queue counters (attr_queue_*): ./attribute --json on each ItemSync CUDA trace in
# RESULTS_DIR/traces/ into RESULTS_DIR/queue/<trace>.json, which analysis.report reads when a
# row has no queue counters. Cost: well under a second a trace (a few epochs each).
# Usage: experiments/trace_queue.sh RESULTS_DIR   (from the repository root, ./attribute built)
set -euo pipefail
results="${1:?usage: experiments/trace_queue.sh RESULTS_DIR}"
cd "$(dirname "$0")/.."
shopt -s nullglob
traces=("$results"/traces/ItemSync_cuda_*.trace.json)
if [ ${#traces[@]} = 0 ]; then
  echo "trace_queue: no ItemSync_cuda_*.trace.json in $results/traces (bench --trace_dir on a GPU writes them)" >&2
  exit 2
fi
mkdir -p "$results/queue"
for trace in "${traces[@]}"; do
  ./attribute --quiet --json "$results/queue/$(basename "$trace")" "$trace"
done
echo "wrote ${#traces[@]} files in $results/queue"
