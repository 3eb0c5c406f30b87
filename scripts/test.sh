#!/usr/bin/env bash
# Sets up (scripts/setup.sh: packages, cached Python env, CUDA toolkit, build) and runs
# every test: C++ unit tests, bench smoke tests, the analysis' pytest. No GPU needed; on a
# machine with one, the CUDA rows of the smoke tests run instead of being skipped.
set -euo pipefail  # pipefail: ctest's exit status survives the tee
. "$(dirname "$0")/common.sh"
"$REPO_ROOT/scripts/setup.sh"
setup_s=$SECONDS
say "running the tests (ctest)"
cd "$BUILD_DIR"
rm -rf test-reports  # the pytest tests' JUnit reports: only this run's are summarised
rc=0
ctest --output-on-failure -j2 "$@" 2>&1 | tee ctest-last.log || rc=$?
# ctest counts a pytest run as one test: list what skipped inside them, then ctest's own
# count again, so it stays the closing line.
"$(venv_dir)/bin/python" "$REPO_ROOT/tests/skip_summary.py" "$BUILD_DIR"
say "took $SECONDS s: setup $setup_s s, ctest $(( SECONDS - setup_s )) s; ctest exit $rc"
grep -E "tests passed|tests failed" ctest-last.log | tail -n 1
exit "$rc"
