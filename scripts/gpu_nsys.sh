#!/usr/bin/env bash
# The Nsight Systems step of the GPU run: bench's ItemSync cuda row under
# `nsys profile -t cuda,nvtx,osrt`, for the timeline (the CUDA rows under our iris phases) and
# for ./attribute to read, into OUT_DIR (default $OUT/nsys) to bring back:
#   itemsync-cuda.nsys-rep (or .qdstrm)   the whole row: 10 warm-up + 100 epochs
#   itemsync-cuda.sqlite                  its export, scrubbed of the machine's environment and
#                                         process list (TARGET_INFO_SYSTEM_ENV, PROCESSES)
#   itemsync-cuda.attribute.json/.txt     ./attribute on the export: per epoch, and the sync table
#   itemsync-cuda_<report>.csv            nsys stats cudaapisum, gpukernsum, nvtxsum
#   epoch.N.nsys-rep (or .qdstrm)         one report per epoch (an NVTX capture range), for
#                                         scripts/nsys_view.sh --report to draw on a machine with nsys-ui
# The GPU machine has no nsys on PATH; Nsight Compute's folder carries one, which was seen to
# write a .qdstrm and no report (its importer is missing): then the .qdstrm files come back and
# nsys_view.sh / ./attribute import them here. Exit 0 whenever something came back to look at.
# Usage: scripts/gpu_nsys.sh [OUT_DIR]   (IRIS_NSYS_DEVICE=cpu rehearses the same steps here)
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"
out="${1:-${OUT:?set OUT or give OUT_DIR}/nsys}"
device="${IRIS_NSYS_DEVICE:-cuda}"
traces=cuda,nvtx,osrt
[ "$device" = cuda ] || traces=nvtx,osrt
start=$SECONDS

# An nsys: the usual places, then any in NVIDIA's install folders (Nsight Compute's copy).
nsys="$(scripts/nsys_path.sh 2>/dev/null)" || nsys=""
if [ -z "$nsys" ]; then
  nsys="$(find /usr/local/cuda* /opt/nvidia /usr/local/NVIDIA* /usr/lib/nsight* -name nsys -type f -perm -u+x 2>/dev/null \
          | sort | tail -n1)" || true
fi
[ -n "$nsys" ] || die "no nsys on this machine (PATH, IRIS_NSYS, the cache, /usr/local/cuda*, /opt/nvidia)"
[ -x "$BUILD_DIR/bench" ] || die "$BUILD_DIR/bench is not built"
mkdir -p "$out"
say "nsys: $nsys ($("$nsys" --version 2>&1 | head -n1)); -t $traces; into $out"
row="^ItemSync/$device/interval:1/print100:0/batch:120/"
args=(--benchmark_filter="$row" --devices="$device" --intervals=1 --print100=0 --batches=120 --warmup_epochs=10)

# 1. The whole row. (bench's own CUPTI tracer steps aside under nsys: no traced pass here.)
"$nsys" profile -t "$traces" --sample=none --cpuctxsw=none --force-overwrite true -o "$out/itemsync-$device" \
  "$BUILD_DIR/bench" "${args[@]}" --epochs=100 > "$out/profile.log" 2>&1 || say "nsys profile exited $? (see $out/profile.log)"
# 2. One report per epoch, 2 warm-up + 6 timed, for the picture (scripts/nsys_view.sh).
"$nsys" profile -t "$traces" --sample=none --cpuctxsw=none --capture-range=nvtx --nvtx-capture=epoch@iris \
  --capture-range-end=repeat-shutdown:8 --force-overwrite true -o "$out/epoch" \
  "$BUILD_DIR/bench" "${args[@]/--warmup_epochs=10/--warmup_epochs=2}" --epochs=20 > "$out/profile-epochs.log" 2>&1 || true
# (Without its importer nsys leaves OUT/<name>.qdstrm where the report would be: kept as is.)

rep="$out/itemsync-$device.nsys-rep"
if [ -f "$rep" ]; then
  "$nsys" export --type sqlite --force-overwrite true --quiet true -o "$out/itemsync-$device.sqlite" "$rep" >/dev/null \
    || say "nsys export failed"
  (cd "$out" && "$nsys" stats --quiet --report cudaapisum,gpukernsum,nvtxsum --format csv \
     -o "itemsync-$device" "itemsync-$device.sqlite" >/dev/null 2>&1) || say "nsys stats failed"
fi
if [ -f "$out/itemsync-$device.sqlite" ]; then
  # An export names the machine's environment and every process it saw: not for a repository.
  python3 - "$out/itemsync-$device.sqlite" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
for t in ("TARGET_INFO_SYSTEM_ENV", "PROCESSES"):
    if t in tables:
        db.execute(f"DELETE FROM {t}")
db.commit()
db.execute("VACUUM")
EOF
  ./attribute --json "$out/itemsync-$device.attribute.json" "$out/itemsync-$device.sqlite" > "$out/itemsync-$device.attribute.txt" \
    || say "./attribute failed on the export"
else
  say "no report from nsys (only a raw stream?): $(ls "$out" | tr '\n' ' ')"
fi
say "done in $(( SECONDS - start )) s: $(ls "$out" | tr '\n' ' ')"
