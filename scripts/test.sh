#!/usr/bin/env bash
# Sets up (scripts/setup.sh: packages, cached Python env, CUDA toolkit, build) and runs
# every test: C++ unit tests, bench smoke tests, the analysis' pytest. No GPU needed; on a
# machine with one, the CUDA rows of the smoke tests run instead of being skipped.
set -euo pipefail
. "$(dirname "$0")/common.sh"
"$REPO_ROOT/scripts/setup.sh"
setup_s=$SECONDS
say "running the tests (ctest)"
cd "$BUILD_DIR"
rc=0
ctest --output-on-failure -j2 "$@" || rc=$?
say "took $SECONDS s: setup $setup_s s, ctest $(( SECONDS - setup_s )) s; ctest exit $rc"
exit "$rc"
