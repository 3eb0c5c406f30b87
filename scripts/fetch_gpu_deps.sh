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
  libcli11-dev          # CLI11 (./attribute's and bench's flags): header-only, CMake config
  libsimdjson-dev       # simdjson (the trace library's JSON parser): headers, CMake config
  libsimdjson14         #   its shared library
  zlib1g-dev            # zlib's headers; the library is the machine's own libz.so.1 (trace_lib.cmake)
  libisal-dev           # ISA-L (the trace library's gzip inflate): headers, libisal.so
  libisal2              #   its shared library
  libsqlite3-dev        # SQLite (the trace library's Nsight Systems reader): headers, libsqlite3.so
  libsqlite3-0          #   its shared library
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
# A link to an absolute path points at this machine's file, which the GPU machine may not have
# (zlib1g-dev's libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13): made relative when its target
# was carried too, else removed, so nothing finds a link that dangles there.
find .deps.new/root -type l -lname '/*' | while IFS= read -r link; do
  target=".deps.new/root$(readlink "$link")"
  if [ -e "$target" ]; then ln -sfn "$(realpath --relative-to="$(dirname "$link")" "$target")" "$link"
  else say "dropped ${link#.deps.new/root} -> $(readlink "$link") (not carried)"; rm -f "$link"; fi
done
# Documentation is not needed there, and what travels is limited to 64 MiB.
rm -rf .deps.new/root/usr/share/doc .deps.new/root/usr/share/man
# The version of each, in the order of PKGS (the stamp scripts/device_rehearsal.sh compares).
for p in "${PKGS[@]}"; do
  echo "$p $(dpkg-deb -f "$debs/${p}_"*.deb Version)"
done > .deps.new/packages.txt
rm -rf .deps && mv .deps.new .deps
say "unpacked ${PKGS[*]} into .deps/root ($(du -sh .deps | cut -f1))"
