#!/usr/bin/env bash
# The GPU run, rehearsed on this machine (no GPU): runs the exact device command in a root that
# has what the GPU machine has and nothing more, with the files that would travel, and no network.
#
#   scripts/device_rehearsal.sh [--part 1|2] [--keep-build] [--new-root]
#
# The GPU machine (the device tool's nvidia-h200, /work/.library/device/KINDS.md) has python3 with
# torch 2.11, numpy, scipy, matplotlib, pytest; nvcc 13.0, CMake, ninja; no Google Benchmark,
# GoogleTest, simdjson or zlib headers; no network; it gets the repository's tracked and
# untracked-not-ignored files plus the carried paths (64 MiB in all), and gives back at most 8
# files under $OUT (16 MiB each, 64 MiB in all, at most 2 folders down). So this:
#   1. makes (once; reused after) a debootstrap Debian 12 root with g++, CMake, ninja and python3,
#      a copy of the project's pinned Python environment (scripts/setup.sh's cache) as its
#      python3 (/opt/torch/.venv, first on PATH, as there) and a copy of this machine's CUDA
#      toolkit; it checks that the root has none of the packages scripts/fetch_gpu_deps.sh carries;
#   2. prepares .deps (scripts/fetch_gpu_deps.sh) when it is missing or its list changed;
#   3. copies into the root exactly what would travel (git ls-files: tracked + untracked-not-
#      ignored, plus the carried paths) and fails if that is over 64 MiB;
#   4. runs the device command (docs/gpu-run.md) there with the network cut (unshare -n):
#        ALLOW_NO_GPU=1 BUDGET_S=<lifted> scripts/gpu_check.sh $OUT [--part 2]
#      ALLOW_NO_GPU=1 because there is no GPU here; the time limits are lifted (BUDGET_S,
#      CAP_FACTOR) because this 2-core machine builds and runs the CPU steps many times slower
#      than the H200's 16 cores, and a budget spent in the build would leave every step untried
#      (the plan's own estimate for the H200 is printed by the run and kept in the result); and
#      OMP_NUM_THREADS=1, since LibTorch's spinning OpenMP threads on cores shared with other
#      work ran an ItemSync CPU epoch 250x slower here (25 ms instead of ~0.1 ms);
#   5. passes only if the command exits 0, configure and build succeeded, every planned step
#      ran or said why not (results/<machine>/steps.tsv in the tarball), and $OUT fits the
#      return limits.
# The summary (date, commit, seconds per step here, estimated GPU seconds per step) is printed and
# kept in $WORK/last-result-part<N>.txt. Needs root (debootstrap, chroot, mount, unshare) on
# x86-64 Debian, network for the first root (Debian's mirror) and scripts/setup.sh's Python env.
# The root (~9 GB) and its logs live in $WORK (IRIS_REHEARSAL_DIR, default
# ~/.cache/iris-rehearsal), outside the repository. --keep-build keeps the last rehearsal's
# build-gpu (as a warm GPU machine keeps it between two calls); --new-root rebuilds the root.
set -euo pipefail
. "$(dirname "$0")/common.sh"

PART=1 KEEP_BUILD=0 NEW_ROOT=0
while [ $# -gt 0 ]; do
  case "$1" in
    --part) PART="${2:-}"; shift 2 ;;
    --keep-build) KEEP_BUILD=1; shift ;;
    --new-root) NEW_ROOT=1; shift ;;
    *) die "unknown argument '$1': expected --part 1|2, --keep-build or --new-root" ;;
  esac
done
case "$PART" in 1|2) ;; *) die "--part: expected 1 or 2, got '$PART'" ;; esac
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mount and unshare need it)"
[ "$(uname -m)" = x86_64 ] || die "needs an x86-64 host (the GPU machine's), found $(uname -m)"

WORK="${IRIS_REHEARSAL_DIR:-$HOME/.cache/iris-rehearsal}"
ROOT="$WORK/root"
REPO_IN=/device/repo   # not the host's path: nothing may resolve to the host's files by accident
OUT_IN=/device/out
CARRY=(.deps)          # the device call's carry (docs/gpu-run.md)
LIMIT_TREE_MIB=64 LIMIT_FILES=8 LIMIT_FILE_MIB=16 LIMIT_OUT_MIB=64
MIRROR=http://deb.debian.org/debian
# What the GPU machine has besides the Python env and the toolkit: a C++ compiler (nvcc needs
# one), CMake, ninja, and a system python3 (its libraries: ssl, ffi, sqlite, ...). No git: the
# copy that travels is a working tree without .git, and the run must not depend on either.
ROOT_PKGS=(g++ cmake ninja-build python3)
LOG="$WORK/rehearsal-part$PART.log"
SUMMARY="$WORK/last-result-part$PART.txt"
mkdir -p "$WORK"
T_START=$(date +%s)
COMMIT=$(git -C "$REPO_ROOT" rev-parse --short=12 HEAD)
DIRTY=""; [ -z "$(git -C "$REPO_ROOT" status --porcelain --untracked-files=no)" ] || DIRTY=" (with uncommitted changes)"

# --- mounts: anything mounted under the root is unmounted before the root is touched ----------
unmount_root_at_start

# --- 1. the root ---------------------------------------------------------------------------------
VENV=$(venv_dir)
[ -f "$VENV/.complete" ] || die "no pinned Python environment at $VENV: run scripts/setup.sh first (it makes it)"
PY_HOME=$(sed -n 's/^home *= *//p' "$VENV/pyvenv.cfg")        # the interpreter the venv runs on
PY_BASE=$(dirname "$PY_HOME")
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || die "no CUDA toolkit here (nvcc not on PATH nor in /usr/local/cuda/bin): the root copies this machine's"
CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
recipe=$(printf '%s\n' "bookworm minbase" "${ROOT_PKGS[@]}" "venv $VENV $(stat -c %Y "$VENV/.complete")" \
                        "python $PY_BASE" "cuda $CUDA_HOME")
if [ "$NEW_ROOT" = 1 ] || [ "$(cat "$WORK/root.recipe" 2>/dev/null)" != "$recipe" ]; then
  command -v debootstrap >/dev/null 2>&1 || {
    say "installing debootstrap on the host"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  }
  rm -f "$WORK/root.recipe"
  rm -rf --one-file-system "$ROOT"
  t0=$(date +%s)
  say "debootstrap: Debian 12 minbase + ${ROOT_PKGS[*]} in $ROOT (log $WORK/debootstrap.log)"
  mkdir -p "$WORK/debs"
  debootstrap --variant=minbase --arch=amd64 --cache-dir="$WORK/debs" --include="$(IFS=,; echo "${ROOT_PKGS[*]}")" \
    bookworm "$ROOT" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 \
    || { tail -n 20 "$WORK/debootstrap.log"; die "debootstrap failed (log: $WORK/debootstrap.log)"; }
  # Copies, not bind mounts: the shared Python env must never be written to, and a copy cannot be.
  say "copying the pinned Python environment ($VENV, $(du -sh "$VENV" | cut -f1)) and its interpreter ($PY_BASE)"
  mkdir -p "$ROOT/opt/torch" "$ROOT$(dirname "$PY_BASE")"
  cp -a "$VENV" "$ROOT/opt/torch/.venv"
  [ "$PY_BASE" = /usr ] || cp -a "$PY_BASE" "$ROOT$PY_BASE"
  say "copying the CUDA toolkit ($CUDA_HOME, $(du -sh "$CUDA_HOME" | cut -f1))"
  mkdir -p "$ROOT/usr/local"
  cp -a "$CUDA_HOME" "$ROOT/usr/local/$(basename "$CUDA_HOME")"
  [ "$(basename "$CUDA_HOME")" = cuda ] || ln -sfn "$(basename "$CUDA_HOME")" "$ROOT/usr/local/cuda"
  printf '%s\n' "$recipe" > "$WORK/root.recipe"
  say "root ready in $(( $(date +%s) - t0 )) s ($(du -sh --one-file-system "$ROOT" | cut -f1))"
else
  say "reusing the root in $ROOT (same recipe; --new-root rebuilds it)"
fi
# The root must lack what is carried, or the rehearsal would prove nothing about carrying it;
# except a runtime library the root's own Python needs (libsqlite3-0, for its sqlite3 module):
# it cannot be removed without python3, and is carried in case the GPU machine's Python was
# built without it. The build there and here takes the carried copy first (CMAKE_LIBRARY_PATH).
carried_pkgs=$("$REPO_ROOT/scripts/fetch_gpu_deps.sh" --list)
python_needs=$(chroot "$ROOT" sh -c "dpkg-query -W -f='\${Depends}, ' 'libpython3*-stdlib'" 2>/dev/null | tr ',|' '\n\n' | awk '{ print $1 }')
present=(); absent=()
for p in $carried_pkgs; do
  if ! chroot "$ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then absent+=("$p")
  elif grep -qx "$p" <<< "$python_needs"; then say "the root has $p, which its python3 needs (carried all the same)"
  else present+=("$p"); fi
done
[ ${#present[@]} -eq 0 ] || die "the root has packages that .deps carries: ${present[*]} (remove them or --new-root)"
say "the root has none of the other carried packages (${absent[*]})"

# --- 2. .deps ------------------------------------------------------------------------------------
if [ "$(cat "$REPO_ROOT/.deps/packages.txt" 2>/dev/null | cut -d' ' -f1)" != "$(printf '%s\n' $carried_pkgs)" ]; then
  say ".deps is missing or stale: scripts/fetch_gpu_deps.sh"
  "$REPO_ROOT/scripts/fetch_gpu_deps.sh"
fi

# --- 3. the files that travel --------------------------------------------------------------------
cd "$REPO_ROOT"
list=$(mktemp)
git ls-files -z -co --exclude-standard > "$list"
for c in "${CARRY[@]}"; do
  [ -e "$c" ] || die "carried path $c does not exist"
  find "$c" ! -type d -print0 >> "$list"
done
# Sizes of the regular files that exist (a tracked file deleted in the work tree does not travel;
# a link travels as a link, a few bytes).
bytes=0 paths=0 travel=$(mktemp)
while IFS= read -r -d '' f; do
  [ -e "$f" ] || [ -L "$f" ] || continue
  printf '%s\0' "$f" >> "$travel"
  paths=$((paths + 1))
  if [ -f "$f" ] && [ ! -L "$f" ]; then bytes=$(( bytes + $(stat -c %s "$f") )); fi
done < "$list"
mib=$(( (bytes + 1048575) / 1048576 ))
say "what travels: $paths files, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB (limit $LIMIT_TREE_MIB MiB; carry: ${CARRY[*]})"
[ "$bytes" -le $(( LIMIT_TREE_MIB * 1048576 )) ] || die "what travels is $mib MiB, over the device tool's $LIMIT_TREE_MIB MiB"
saved_build=""
if [ "$KEEP_BUILD" = 1 ] && [ -d "$ROOT$REPO_IN/build-gpu" ]; then
  saved_build="$ROOT/build-gpu.kept"; rm -rf "$saved_build"; mv "$ROOT$REPO_IN/build-gpu" "$saved_build"
fi
rm -rf "$ROOT/device" && mkdir -p "$ROOT$REPO_IN" "$ROOT$OUT_IN"
tar --null --no-recursion -T "$travel" -cf - | tar -xf - -C "$ROOT$REPO_IN"
rm -f "$list" "$travel"
[ -z "$saved_build" ] || mv "$saved_build" "$ROOT$REPO_IN/build-gpu"

# --- 4. the run: no network, a clean environment, the root's own /dev ---------------------------
mount_root_dev "$ROOT"

ARGS=""; [ "$PART" = 2 ] && ARGS=" --part 2"
# The device call's command (docs/gpu-run.md), with the commit it was prepared from: the copy that
# travels has no .git.
DEVICE_CMD="IRIS_GIT_COMMIT=$COMMIT scripts/gpu_check.sh \$OUT$ARGS"
# Only the time limits and OpenMP's threads differ from the device call: see the header.
say "running in the root, network cut: ALLOW_NO_GPU=1 BUDGET_S=100000 CAP_FACTOR=50 OMP_NUM_THREADS=1 $DEVICE_CMD (log $LOG)"
t_run=$(date +%s)
set +e
# unshare -n: a network namespace with only a loopback (brought up, as any machine has one).
# env -i: nothing of this shell's environment leaks in.
unshare --net -- sh -c 'ip link set lo up 2>/dev/null; exec "$@"' sh \
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/opt/torch/.venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    OUT="$OUT_IN" ALLOW_NO_GPU=1 BUDGET_S=100000 CAP_FACTOR=50 OMP_NUM_THREADS=1 \
    timeout 10800 /bin/bash -c "cd $REPO_IN && $DEVICE_CMD" > "$LOG" 2>&1
rc=$?
set -e
run_s=$(( $(date +%s) - t_run ))
unmount_all
tail -n 25 "$LOG" | sed 's/^/    | /'

# --- 5. the verdict ------------------------------------------------------------------------------
summary=() fails=()
note() { say "$*"; summary+=("$*"); }
fail() { fails+=("$*"); }
[ "$rc" = 0 ] || fail "the command exited $rc"
grep -q "PREFLIGHT FAILED" "$LOG" && fail "preflight failed: $(grep -m3 'PREFLIGHT FAILED' "$LOG" | sed 's/.*PREFLIGHT FAILED: //' | tr '\n' ';')"
grep -q "BUILD FAILED" "$LOG" && fail "configure or build failed: $(grep -m3 -E 'CMake Error|error:|Could not find' "$LOG" | tr '\n' ';')"
# $OUT against the return limits
OUT_HOST="$ROOT$OUT_IN"
n_files=$(find "$OUT_HOST" -mindepth 1 -type f | wc -l)
[ "$n_files" -le "$LIMIT_FILES" ] || fail "\$OUT holds $n_files files, over $LIMIT_FILES"
while IFS= read -r f; do
  rel=${f#"$OUT_HOST"/}
  sz=$(stat -c %s "$f")
  [ "$sz" -le $(( LIMIT_FILE_MIB * 1048576 )) ] || fail "\$OUT/$rel is $(( sz / 1048576 )) MiB, over $LIMIT_FILE_MIB MiB"
  depth=$(( $(tr -cd '/' <<< "$rel" | wc -c) ))
  [ "$depth" -le 2 ] || fail "\$OUT/$rel is $depth folders down, over 2"
  [[ "$rel" =~ ^[A-Za-z0-9._/-]+$ ]] || fail "\$OUT/$rel: a name with characters other than letters, digits, '.', '_', '-'"
done < <(find "$OUT_HOST" -mindepth 1 -type f)
other=$(find "$OUT_HOST" -mindepth 1 ! -type f ! -type d | head -n 3)
[ -z "$other" ] || fail "\$OUT holds links or other non-files (they do not come back): $other"
total=$(du -sb "$OUT_HOST" | cut -f1)
[ "$total" -le $(( LIMIT_OUT_MIB * 1048576 )) ] || fail "\$OUT totals $(( total / 1048576 )) MiB, over $LIMIT_OUT_MIB MiB"
# Every planned step ran or said why not (steps-part<N>.tsv: step, status, seconds, estimated GPU
# seconds, note). "cut" (stopped at its cap) fails here: with the caps lifted it means a hang.
tarball=$(find "$OUT_HOST" -maxdepth 1 -name 'results-*.tar.gz' | head -n 1)
steps=""
if [ -z "$tarball" ]; then fail "no results-*.tar.gz in \$OUT"
elif ! steps=$(tar -xzOf "$tarball" --wildcards "*/steps-part$PART.tsv" 2>/dev/null) || [ -z "$steps" ]; then
  fail "no steps-part$PART.tsv in $(basename "$tarball") (gpu_check.sh writes one line per step)"
else
  bad=$(awk -F'\t' 'NR > 1 && $2 != "ran" && $2 != "not-run" { print $1 " " $2 ": " $5 }' <<< "$steps")
  [ -z "$bad" ] || fail "steps that neither ran nor said why not: $(tr '\n' ';' <<< "$bad")"
  unexplained=$(awk -F'\t' 'NR > 1 && $2 == "not-run" && $5 == "" { print $1 }' <<< "$steps")
  [ -z "$unexplained" ] || fail "steps not run without a reason: $unexplained"
fi

human() { printf '%d min %02d s' $(( $1 / 60 )) $(( $1 % 60 )); }
verdict=PASS; [ ${#fails[@]} -eq 0 ] || verdict=FAIL
note "$verdict: device rehearsal part $PART, commit $COMMIT$DIRTY, $(date -u '+%Y-%m-%d %H:%M UTC'), command $(human "$run_s") (whole rehearsal $(human $(( $(date +%s) - T_START ))))"
note "the device call: run(command='$DEVICE_CMD', carry=[\"${CARRY[*]}\"], timeout_s=$([ "$PART" = 1 ] && echo 450 || echo 240))"
note "what travelled: $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB of $LIMIT_TREE_MIB; \$OUT: $n_files files, $(awk -v b="$total" 'BEGIN { printf "%.1f", b / 1048576 }') MiB"
if [ -n "$steps" ]; then
  n_said=${#summary[@]}
  summary+=("step | status | seconds here | estimated GPU seconds | note")
  while IFS=$'\t' read -r s st secs est why; do summary+=("$s | $st | $secs | $est | $why"); done < <(tail -n +2 <<< "$steps")
  printf '%s\n' "${summary[@]:$n_said}" | sed 's/^/    /'
fi
for f in "${fails[@]}"; do note "FAILED: $f"; done
printf '%s\n' "${summary[@]}" > "$SUMMARY.tmp" && mv "$SUMMARY.tmp" "$SUMMARY"
say "summary kept in $SUMMARY; the run's log in $LOG; \$OUT in $OUT_HOST"
[ "$verdict" = PASS ]
