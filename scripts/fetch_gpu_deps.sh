#!/usr/bin/env bash
# Prepares .deps/ (git-ignored) for the GPU machine, which has no network and no Google
# Benchmark or GoogleTest: downloads Debian's packages here and unpacks them into
# .deps/root. Pass `.deps` in the device tool's `carry`; scripts/gpu_check.sh finds it.
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"
PKGS=(libbenchmark-dev libbenchmark1debian libgtest-dev)
rm -rf .deps && mkdir -p .deps/debs .deps/root
( cd .deps/debs && apt-get download "${PKGS[@]}" 2>/dev/null ) || {
  say "apt-get download failed; refreshing the package lists once"
  apt-get update -qq
  ( cd .deps/debs && apt-get download "${PKGS[@]}" )
}
for deb in .deps/debs/*.deb; do dpkg -x "$deb" .deps/root; done
say "unpacked ${PKGS[*]} into .deps/root ($(du -sh .deps | cut -f1))"
