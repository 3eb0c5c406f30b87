#!/usr/bin/env bash
# Installs what the suite needs and builds it. Idempotent: a second run checks and returns
# in seconds. Steps:
#   1. Debian packages: Google Benchmark, GoogleTest, CMake, Ninja, a C++ compiler.
#   2. The pinned Python environment (requirements.txt: torch 2.11.0 = LibTorch, numpy,
#      scipy, matplotlib, pytest) in a cache outside the clone; .venv links to it.
#   3. CMake configure + build into build/ (CUDA parts when the toolkit is found).
# Environment: IRIS_BENCH_CACHE (cache folder), BUILD_DIR, PYTHON (base interpreter),
# CMAKE_BUILD_TYPE (default Release).
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"

# --- 1. Debian packages -------------------------------------------------------------
APT_PKGS=(libbenchmark-dev libbenchmark-tools libgtest-dev cmake ninja-build g++ git libsimdjson-dev zlib1g-dev clang libclang-rt-dev)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
"$PYTHON_BASE" -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  say "Debian packages present (${APT_PKGS[*]})"
fi

# --- 2. Python environment (cached outside the clone) -------------------------------
VENV=$(venv_dir)
if [ ! -f "$VENV/.complete" ]; then
  say "creating the Python environment in $VENV (torch 2.11.0 with its CUDA wheels: ~4 GB, a few minutes once)"
  rm -rf "$VENV"
  mkdir -p "$CACHE_ROOT"
  "$PYTHON_BASE" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install --progress-bar off -r requirements.txt
  touch "$VENV/.complete"   # written last: an interrupted install is redone next time
else
  say "Python environment up to date ($VENV)"
fi
ln -sfn "$VENV" .venv

# --- 3. Configure and build ---------------------------------------------------------
TORCH_PREFIX=$("$VENV/bin/python" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  say "configuring $BUILD_DIR"
  cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DCMAKE_PREFIX_PATH="$TORCH_PREFIX" \
    -DPython3_EXECUTABLE="$VENV/bin/python"
fi
say "building (first build of the LibTorch sources takes several minutes on 2 cores)"
cmake --build "$BUILD_DIR"
say "ready: ./bench --help"
