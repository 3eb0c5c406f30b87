#!/usr/bin/env bash
# Prepares .deps/ (git-ignored) for the GPU machine, which has no network and none of the
# Debian packages below: downloads them here and unpacks them into .deps/root. Pass `.deps` in
# the device tool's `carry`; scripts/gpu_check.sh finds it.
#   scripts/fetch_gpu_deps.sh          download + unpack; .deps/packages.txt says what and which version
#   scripts/fetch_gpu_deps.sh --list   print the package names, one a line (tests/check_gpu_carry.py
#                                      and scripts/device_rehearsal.sh read them)
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"
# One package a line: a -dev package and, where it has one, its runtime library package.
PKGS=(
  libbenchmark-dev      # Google Benchmark: headers, CMake config
  libbenchmark1debian   #   its shared library
  libgtest-dev          # GoogleTest: headers, static libraries, CMake config
)
if [ "${1:-}" = --list ]; then printf '%s\n' "${PKGS[@]}"; exit 0; fi
[ $# -eq 0 ] || die "unknown argument '$1': expected nothing or --list"
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT
( cd "$debs" && apt-get download "${PKGS[@]}" 2>/dev/null ) || {
  say "apt-get download failed; refreshing the package lists once"
  apt-get update -qq
  ( cd "$debs" && apt-get download "${PKGS[@]}" )
}
# Unpacked into a new folder that replaces .deps whole: an interrupted run leaves the old one.
rm -rf .deps.new && mkdir -p .deps.new/root
for deb in "$debs"/*.deb; do dpkg -x "$deb" .deps.new/root; done
# The version of each, in the order of PKGS (the stamp scripts/device_rehearsal.sh compares).
for p in "${PKGS[@]}"; do
  echo "$p $(dpkg-deb -f "$debs/${p}_"*.deb Version)"
done > .deps.new/packages.txt
rm -rf .deps && mv .deps.new .deps
say "unpacked ${PKGS[*]} into .deps/root ($(du -sh .deps | cut -f1))"
