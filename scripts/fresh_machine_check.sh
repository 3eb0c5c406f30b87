#!/usr/bin/env bash
# The README's two commands on a fresh Debian 12, as a new user would run them: builds a
# minimal bookworm root with debootstrap, installs only what such a person has (git,
# ca-certificates, python3, python3-venv, sudo; no compiler, no Python headers, no CUDA
# toolkit), clones this repository's committed HEAD into it, and runs there, as a user with
# sudo and exactly as the README gives them:
#   1. `scripts/reproduce.sh` (the main job) first: setup installs, downloads and builds
#      everything, then the whole experiment runs on the CPU (the root has no GPU);
#   2. `scripts/test.sh`: what setup costs once done, then every test;
#   3. `scripts/test.sh` again after a configure that failed half-way (cache left, no
#      build.ninja) and a PyPI CUDA toolkit whose install stopped before its completion
#      marker: both must be redone;
#   4. the README's Python lines: its Debian packages, `pip install .` in a fresh venv of
#      Debian's python3, and its one-line example.
# Prints each run's exit status and time, the tests passed/failed/skipped, the sizes
# downloaded and on disk, and PASS/FAIL; the summary (with the date and commit) is also kept
# in .fresh-machine/last-result.txt, and the main job's results/ in .fresh-machine/results/.
# Needs root on an x86-64 Debian host with network access to deb.debian.org and PyPI;
# downloads ~3.5 GB, needs ~15 GB in .fresh-machine/ (git-ignored), and takes 1-2 hours on
# 2 shared cores, most of it the main job. Not run by CI. The root's caches (pip, apt, the
# Python environment) are its own: the host's ~/.cache is never used.
# Usage: scripts/fresh_machine_check.sh [--keep]   (--keep reuses the root of the last run
# instead of starting from debootstrap: for iterating, not for the recorded result)
set -euo pipefail
. "$(dirname "$0")/common.sh"

KEEP=0
case "${1:-}" in
  "") ;;
  --keep) KEEP=1 ;;
  *) echo "fresh_machine_check: unknown argument '$1': expected nothing or --keep" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot and mount need it)"
[ "$(uname -m)" = x86_64 ] || die "needs an x86-64 host (the suite's target), found $(uname -m)"

WORK="$REPO_ROOT/.fresh-machine"
ROOT="$WORK/root"
USER_NAME=tester
CLONE_IN="/home/$USER_NAME/iris-gpu-overhead"
MIRROR=http://deb.debian.org/debian
SUMMARY="$WORK/last-result.txt"
mkdir -p "$WORK"
COMMIT=$(git -C "$REPO_ROOT" rev-parse HEAD)
[ -z "$(git -C "$REPO_ROOT" status --porcelain --untracked-files=no)" ] \
  || say "warning: uncommitted changes in $REPO_ROOT are not tested (the root gets a clone of HEAD)"

summary=()
note() { say "$*"; summary+=("$*"); }

unmount_root_at_start  # common.sh

command -v debootstrap >/dev/null 2>&1 || {
  say "installing debootstrap on the host"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
}

t_start=$(date +%s)
if [ "$KEEP" = 1 ] && [ -x "$ROOT/usr/bin/python3" ]; then
  note "reusing the root of the last run ($ROOT): NOT a fresh machine"
else
  rm -rf --one-file-system "$ROOT"
  say "debootstrap: minimal Debian 12 (bookworm) root in $ROOT"
  t0=$(date +%s)
  rm -rf "$WORK/debootstrap-debs" && mkdir -p "$WORK/debootstrap-debs"
  debootstrap --variant=minbase --arch=amd64 --cache-dir="$WORK/debootstrap-debs" \
    --include=git,ca-certificates,python3,python3-venv,sudo \
    bookworm "$ROOT" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$WORK/debootstrap.log"; die "debootstrap failed (log: $WORK/debootstrap.log)"; }
  # What a Debian 12 install lists: main, its updates and security updates.
  cat > "$ROOT/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
  chroot "$ROOT" useradd --create-home --shell /bin/bash "$USER_NAME"
  echo "$USER_NAME ALL=(ALL) NOPASSWD:ALL" > "$ROOT/etc/sudoers.d/$USER_NAME"
  chmod 0440 "$ROOT/etc/sudoers.d/$USER_NAME"
  note "debootstrap (minbase + git ca-certificates python3 python3-venv sudo): $(( $(date +%s) - t0 )) s, root $(du -sh --one-file-system "$ROOT" | cut -f1)"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The root shares the host's network. Where the host reaches it through a TLS-intercepting
# proxy whose CA it trusts (/usr/local/share/ca-certificates), the root needs the same
# trust, and pip (which otherwise uses its own CA bundle) the system's bundle. A machine
# with direct access needs neither; nothing else of the host is copied.
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
  chroot "$ROOT" update-ca-certificates >/dev/null 2>&1
  printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > "$ROOT/etc/pip.conf"
  note "the host's extra CA certificates (its TLS proxy) copied into the root; /etc/pip.conf points pip at the system's bundle"
fi
# The chroot shares the host's hostname; sudo warns on every call if it cannot resolve it.
grep -q "[[:space:]]$(hostname)\$" "$ROOT/etc/hosts" 2>/dev/null || echo "127.0.1.1 $(hostname)" >> "$ROOT/etc/hosts"

# The clone: this repository's committed HEAD, as `git clone` would give it.
rm -rf --one-file-system "$ROOT$CLONE_IN"
git clone -q --no-hardlinks "$REPO_ROOT" "$ROOT$CLONE_IN"
git -C "$ROOT$CLONE_IN" checkout -q --detach "$COMMIT"
chroot "$ROOT" chown -R "$USER_NAME:$USER_NAME" "$CLONE_IN"

# The root's own /dev, not the host's (common.sh).
mount_root_dev "$ROOT"

# Runs one README command in the root as the user, with a login environment, and keeps its
# log in $WORK/run-N.log. Sets run_rc and run_s.
run_cmd() {  # N, command
  local log="$WORK/run-$1.log" t0
  t0=$(date +%s)
  set +e
  # CMAKE_BUILD_PARALLEL_LEVEL passes through when set (setup's build then runs that many
  # jobs, as a user's would): on cores shared with others, the host's choice of load.
  chroot "$ROOT" /usr/bin/env -i TERM=dumb LANG=C.UTF-8 \
    /bin/su -l "$USER_NAME" -c "cd $CLONE_IN && ${CMAKE_BUILD_PARALLEL_LEVEL:+CMAKE_BUILD_PARALLEL_LEVEL=$CMAKE_BUILD_PARALLEL_LEVEL }$2" > "$log" 2>&1
  run_rc=$?
  set -e
  run_s=$(( $(date +%s) - t0 ))
  tail -n 4 "$log" | sed "s/^/    run $1 | /"
}
human() { printf '%d min %02d s' $(( $1 / 60 )) $(( $1 % 60 )); }
# Setup's own account of a run ("ready in N s (packages N s, ...)"), without its colours.
setup_line() {
  local line
  line=$(grep -a 'ready in [0-9]* s' "$1" | tail -n1 | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[setup\] //' -e 's/: \.\/bench --help$//')
  echo "setup ${line:-did not finish}"
}
# ctest's counts: "N% tests passed, F tests failed out of T", and the tests it lists as not
# run ("(Skipped)"; a test that skips some of its cases inside, as the CUDA ones do without
# a GPU, passes).
ctest_counts() {
  local total failed skipped
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$1" | tail -n1)
  failed=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' "$1" | tail -n1)
  [ -n "$total" ] || { echo "no ctest summary in $1"; return; }
  skipped=$(grep -c '(Skipped)' "$1" || true)
  echo "$(( total - failed - skipped )) passed, $failed failed, $skipped skipped of $total"
}

pass=1
say "run 1: scripts/reproduce.sh, the main job, on the new clone (log: $WORK/run-1.log; tens of minutes)"
run_cmd 1 scripts/reproduce.sh
machine=$(sed -n 's/.*done: results\/\([^/]*\)\/REPORT.md.*/\1/p' "$WORK/run-1.log" | tail -n1)
note "run 1 (first, the main job): scripts/reproduce.sh exit $run_rc in $(human "$run_s") ($(setup_line "$WORK/run-1.log"))"
if [ "$run_rc" = 0 ] && [ -n "$machine" ] && [ -s "$ROOT$CLONE_IN/results/$machine/REPORT.md" ]; then
  rm -rf "$WORK/results" && cp -r "$ROOT$CLONE_IN/results/$machine" "$WORK/results"
  note "run 1 wrote results/$machine/ ($(ls "$WORK/results" | grep -c '\.json$') JSON files, REPORT.md), copied to $WORK/results"
else
  pass=0
fi
py_headers=$(grep -a "Python's headers for torch.compile" "$WORK/run-1.log" | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[setup\] //' | head -n1)
[ -z "$py_headers" ] || note "run 1 setup: $py_headers"

# The tests run even when the main job failed: their result says more about why.
say "run 2: scripts/test.sh (log: $WORK/run-2.log)"
run_cmd 2 scripts/test.sh
note "run 2 (later, the tests): scripts/test.sh exit $run_rc in $(human "$run_s") ($(setup_line "$WORK/run-2.log"); $(grep -a 'took [0-9]* s: setup' "$WORK/run-2.log" | tail -n1 | sed -e 's/\x1b\[[0-9;]*m//g' -e 's/^\[test\] //'))"
note "ctest (run 2): $(ctest_counts "$WORK/run-2.log")"
[ "$run_rc" = 0 ] || pass=0

if [ "$pass" = 1 ]; then
  # A configure that stopped half-way: its cache stays, build.ninja does not (what made a
  # second run fail with "loading 'build.ninja'" before). A PyPI toolkit whose install
  # stopped: no completion marker, a missing link. Both must be redone by the next run.
  b="$ROOT$CLONE_IN/build"
  rm -f "$b/build.ninja" "$b/.setup-configured"
  echo 'CUDA_TOOLKIT_ROOT_DIR:PATH=CUDA_TOOLKIT_ROOT_DIR-NOTFOUND' >> "$b/CMakeCache.txt"
  venv="$ROOT$(readlink "$ROOT$CLONE_IN/.venv")"   # the link is absolute inside the root
  rm -f "$venv/.cuda-toolkit-complete" "$venv"/lib/python3*/site-packages/nvidia/cu*/lib/libcudart.so
  say "run 3: scripts/test.sh after a failed configure and an interrupted CUDA toolkit install (log: $WORK/run-3.log)"
  run_cmd 3 scripts/test.sh
  recovered=yes
  grep -q "configuring afresh" "$WORK/run-3.log" || recovered="no (configure not redone)"
  grep -q "installing CUDA .* from PyPI" "$WORK/run-3.log" || recovered="no (toolkit not reinstalled)"
  note "run 3 (recovery: failed configure + interrupted toolkit install): exit $run_rc in $(human "$run_s"), redone: $recovered; ctest: $(ctest_counts "$WORK/run-3.log")"
  [ "$run_rc" = 0 ] && [ "$recovered" = yes ] || pass=0
fi

# The README's Python lines, as a user would type them: the Debian packages it names, a fresh
# venv of Debian's python3, `pip install .`, and its one-line example.
say "run 4: the README's Python section, pip install . in a fresh venv (log: $WORK/run-4.log)"
py_pkgs=$(sed -n 's/^sudo apt-get install \(g++ cmake python3-dev python3-venv .*\)$/\1/p' "$ROOT$CLONE_IN/README.md")
if [ -z "$py_pkgs" ]; then
  note "run 4: README.md has no 'sudo apt-get install g++ cmake python3-dev python3-venv ...' line"
  pass=0
else
  run_cmd 4 "sudo apt-get install -y -qq $py_pkgs && rm -rf /tmp/readme-venv && python3 -m venv /tmp/readme-venv && . /tmp/readme-venv/bin/activate && pip install -q . && python -c \"from iris_trace import attribute; print(attribute('tests/data/traces/a100-alexnet-syncs.json.gz'))\""
  note "run 4 (README's Python lines: pip install . in a fresh venv): exit $run_rc in $(human "$run_s")"
  grep -q "a100-alexnet-syncs.json.gz  (rank 0" "$WORK/run-4.log" || { note "run 4: the example printed no table"; pass=0; }
  [ "$run_rc" = 0 ] || pass=0
fi

# Sizes: pip's log names every wheel it downloads with its size; apt keeps its .debs.
pip_mb() {
  cat "$@" 2>/dev/null | awk '/Downloading .*\([0-9.]+ [kMG]B\)/ {
      n = $(NF-1); u = $NF; gsub(/[()]/, "", n); gsub(/[()]/, "", u)
      s += (u == "kB") ? n / 1000 : (u == "GB") ? n * 1000 : n }
    END { printf "%.0f MB", s }'
}
size() { du -sh --one-file-system "$@" 2>/dev/null | cut -f1 | head -n1; }
note "downloaded: debootstrap's .debs $(size "$WORK/debootstrap-debs"), setup's Debian packages $(size "$ROOT/var/cache/apt/archives"), wheels $(pip_mb "$WORK"/run-*.log) (run 1: $(pip_mb "$WORK/run-1.log"))"
note "on disk: Python env + CUDA wheels $(size "$ROOT/home/$USER_NAME/.cache/iris-gpu-overhead"), build/ $(size "$ROOT$CLONE_IN/build"), whole root $(size "$ROOT")"
if grep -q "CUDA toolkit: none on this machine" "$WORK/run-1.log" 2>/dev/null; then
  note "CUDA: $(grep -m1 'iris: CUDA toolkit' "$WORK/run-1.log" | sed 's/^-- //')"
fi

verdict=FAIL; [ "$pass" = 1 ] && verdict=PASS
kind="fresh Debian 12 root"; [ "$KEEP" = 1 ] && kind="Debian 12 root reused (--keep: new clone, cached environment)"
note "$verdict: $kind, commit ${COMMIT:0:12}, $(date -u '+%Y-%m-%d %H:%M UTC'), whole check $(human $(( $(date +%s) - t_start )))"
printf '%s\n' "${summary[@]}" > "$SUMMARY.tmp" && mv "$SUMMARY.tmp" "$SUMMARY"
[ "$pass" = 1 ]
