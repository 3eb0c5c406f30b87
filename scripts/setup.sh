#!/usr/bin/env bash
# Installs what the suite needs and builds it. Idempotent: a second run checks and returns
# in seconds, and it recovers from its own failures (an interrupted or failed step is
# detected and redone on the next run; no `rm -rf build` needed). Steps:
#   1. Debian packages: Google Benchmark, GoogleTest, CMake, Ninja, a C++ compiler, and the
#      headers of the Python the environment is built from (python3.X-dev) when it lacks
#      them: torch.compile's inductor compiles C++ that includes Python.h.
#   2. The pinned Python environment (requirements.txt: torch 2.11.0 = LibTorch, numpy,
#      scipy, matplotlib, pytest) in a cache outside the clone; .venv links to it.
#   3. A CUDA toolkit: the system's when there is one (nvcc on PATH, $CUDACXX or
#      /usr/local/cuda), else NVIDIA's wheels from PyPI at torch's CUDA version, installed
#      into the cached environment (scripts/cuda_from_pypi.sh). The torch wheel is a CUDA
#      build whose CMake files require a toolkit even for the CPU-only parts.
#   4. CMake configure + build into build/ (the CUDA parts compile without a GPU).
#   5. The Python package iris_trace (pyproject.toml) pip-installed into the environment.
# Environment: IRIS_BENCH_CACHE (cache folder), BUILD_DIR, PYTHON (base interpreter),
# CMAKE_BUILD_TYPE (default Release), IRIS_CUDA_FROM_PYPI=1 (use the PyPI toolkit even
# when the system has one: how the no-toolkit path is tested on a machine with one).
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"
# Seconds per step, said at the end: what a first and a later run cost, and where.
timings=()
lap_start=$SECONDS
lap() { timings+=("$1 $(( SECONDS - lap_start )) s"); lap_start=$SECONDS; }

# --- 1. Debian packages -------------------------------------------------------------
# chromium: headless, it renders ./attribute --html's page in a test (tests/sites).
APT_PKGS=(libbenchmark-dev libbenchmark-tools libgtest-dev libcli11-dev cmake ninja-build g++ git libsimdjson-dev zlib1g-dev libisal-dev clang clang-format libclang-rt-dev libsqlite3-dev libssh-4 chromium)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
"$PYTHON_BASE" -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
# torch.compile (experiments/torch_compile.py, in the main job and torch_compile_smoke)
# compiles its CPU kernels with g++ and includes Python.h from sysconfig's include folder:
# the base interpreter's (a venv's is its base's), so that is the one checked. Debian ships
# it in python3.X-dev, which a fresh install lacks; pyenv, conda and source builds carry
# their own, so the package is added only when the header is missing and the interpreter
# is Debian's (a path dpkg knows).
mapfile -t py_info < <("$PYTHON_BASE" -c 'import os, sys, sysconfig
print(sysconfig.get_paths()["include"]); print("%d.%d" % sys.version_info[:2]); print(os.path.realpath(sys.executable))')
[ ${#py_info[@]} -eq 3 ] || die "cannot run the base Python '$PYTHON_BASE' (PYTHON): setup needs Python 3.11 with venv"
PY_INCLUDE=${py_info[0]}; PY_VERSION=${py_info[1]}; PY_EXE=${py_info[2]}
if [ -f "$PY_INCLUDE/Python.h" ]; then
  py_headers="Python's headers for torch.compile present ($PY_INCLUDE)"
elif dpkg -S "$PY_EXE" >/dev/null 2>&1; then
  py_headers="Python's headers for torch.compile: installed python$PY_VERSION-dev (Debian's $PY_EXE had no $PY_INCLUDE/Python.h)"
  missing+=("python$PY_VERSION-dev")
else
  die "torch.compile needs the headers of the Python the environment is built from, and $PY_EXE has none" \
      "($PY_INCLUDE/Python.h is missing); it is not Debian's, so apt cannot add them: install that Python's" \
      "headers, or use Debian's with PYTHON=/usr/bin/python3 (setup then installs python3.X-dev)"
fi
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root or sudo to install the Debian packages: ${missing[*]}"
    SUDO=sudo
  fi
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  [ -f "$PY_INCLUDE/Python.h" ] || die "python$PY_VERSION-dev is installed but $PY_INCLUDE/Python.h, which torch.compile includes, is still missing"
else
  say "Debian packages present (${APT_PKGS[*]})"
fi
say "$py_headers"
lap packages
"$REPO_ROOT/scripts/nsys_setup.sh" || true  # Nsight Systems (optional: on failure it says why, and the nsys tests skip)

# --- 2. Python environment (cached outside the clone) -------------------------------
# Checked, not only marked: .complete is written after the install, and the key imports
# must still work (a cache cleaned by hand or a disk that filled up leaves .complete behind
# a broken environment). The same call gives LibTorch's CMake folder.
VENV=$(venv_dir)
probe_venv() {
  "$VENV/bin/python" -c 'import numpy, scipy, matplotlib, pytest, sklearn, ruff, pandas, nanobind, scikit_build_core, distributed, plotly, torch, torch.utils
print(torch.utils.cmake_prefix_path); print(torch.version.cuda or "none")' 2>/dev/null
}
PROBE=""
if [ -f "$VENV/.complete" ] && PROBE=$(probe_venv); then
  say "Python environment up to date ($VENV)"
else
  if [ -f "$VENV/.complete" ]; then
    say "the cached Python environment in $VENV is broken (its key imports fail): recreating it"
  elif [ -d "$VENV" ]; then
    say "the cached Python environment in $VENV is incomplete (an earlier install stopped): recreating it"
  fi
  say "creating the Python environment in $VENV (torch 2.11.0 with its CUDA wheels: ~2.8 GB to download, ~5 GB on disk, once)"
  rm -rf "$VENV"
  mkdir -p "$CACHE_ROOT"
  "$PYTHON_BASE" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install --progress-bar off -r requirements.txt
  PROBE=$(probe_venv) || die "the new Python environment in $VENV cannot import numpy, scipy, matplotlib, pytest, sklearn, ruff, pandas, nanobind, scikit_build_core, distributed, plotly and torch"
  touch "$VENV/.complete"   # written last: an interrupted install is redone next time
fi
ln -sfn "$VENV" .venv
TORCH_PREFIX=$(sed -n 1p <<< "$PROBE"); TORCH_CUDA=$(sed -n 2p <<< "$PROBE")
lap "Python env"

# --- 3. CUDA toolkit: the system's, else PyPI's ----------------------------------------
system_nvcc() {
  if [ -n "${CUDACXX:-}" ] && [ -x "$CUDACXX" ]; then echo "$CUDACXX"
  elif command -v nvcc >/dev/null 2>&1; then command -v nvcc
  elif [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda/bin/nvcc
  else return 1
  fi
}
if [ "${IRIS_CUDA_FROM_PYPI:-0}" != 1 ] && NVCC=$(system_nvcc); then
  NVCC=$(readlink -f "$NVCC")
  CUDA_ROOT=$(dirname "$(dirname "$NVCC")")
  NVCC_VERSION=$("$NVCC" --version | sed -n 's/.*release .*, V\([0-9.]*\).*/\1/p')
  say "CUDA toolkit: the system's, $CUDA_ROOT ($NVCC_VERSION)"
  [ "${NVCC_VERSION%%.*}" = "${TORCH_CUDA%%.*}" ] || say "warning: the system's CUDA $NVCC_VERSION is not torch's CUDA $TORCH_CUDA; if configure fails, IRIS_CUDA_FROM_PYPI=1 uses torch's from PyPI"
else
  CUDA_ROOT=$("$REPO_ROOT/scripts/cuda_from_pypi.sh" "$VENV")
  NVCC=$CUDA_ROOT/bin/nvcc
  say "CUDA toolkit: none on this machine, so NVIDIA's wheels from PyPI in the cached environment, $CUDA_ROOT ($("$NVCC" --version | sed -n 's/.*release .*, V\([0-9.]*\).*/\1/p'))"
fi
lap "CUDA toolkit"

# --- 4. Configure and build ---------------------------------------------------------
# A configure counts as done only when it finished (the stamp is written after it) with
# the same arguments. Otherwise the old cache, which may hold NOTFOUND results of a failed
# run or another toolkit's paths, is removed with CMake's compiler checks
# (CMakeFiles/<version>/), and configure runs afresh; built objects stay, and ninja rebuilds
# only what the new configuration changes.
CONFIG_ARGS=(-G Ninja
  -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}"
  -DCMAKE_PREFIX_PATH="$TORCH_PREFIX"
  -DPython3_EXECUTABLE="$VENV/bin/python"
  -DCMAKE_CUDA_COMPILER="$NVCC"
  -DCUDAToolkit_ROOT="$CUDA_ROOT"
  -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_ROOT")
STAMP="$BUILD_DIR/.setup-configured"
want=$(printf '%s\n' "$REPO_ROOT" "${CONFIG_ARGS[@]}")
if [ ! -f "$BUILD_DIR/build.ninja" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ]; then
  if [ -e "$BUILD_DIR/CMakeCache.txt" ]; then
    if [ -f "$STAMP" ]; then
      say "configuration of $BUILD_DIR changed (environment or toolkit): configuring afresh"
    else
      say "the last configure of $BUILD_DIR did not finish: configuring afresh"
    fi
    rm -rf "$BUILD_DIR/CMakeCache.txt" "$BUILD_DIR"/CMakeFiles/[0-9]*
  fi
  rm -f "$STAMP"
  say "configuring $BUILD_DIR"
  # The toolkit's bin on PATH too: torch's CMake files look for nvcc there as well.
  PATH="$(dirname "$NVCC"):$PATH" cmake -S . -B "$BUILD_DIR" "${CONFIG_ARGS[@]}"
  printf '%s\n' "$want" > "$STAMP.tmp" && mv "$STAMP.tmp" "$STAMP"
fi
lap configure
# ninja resumes an interrupted or failed build by itself; the marker only lets us say so.
BUILDING="$BUILD_DIR/.setup-building"
if [ -f "$BUILDING" ]; then
  say "the last build did not finish: resuming it"
fi
touch "$BUILDING"
# Nothing of LibTorch is built: our C++ compiles against the torch wheel's prebuilt LibTorch.
if ninja -C "$BUILD_DIR" -n 2>/dev/null | grep -q "no work to do"; then
  say "build up to date"
else
  say "building bench, ./attribute and the tests against the torch wheel's LibTorch (a first build takes several minutes on 2 cores)"
fi
PATH="$(dirname "$NVCC"):$PATH" cmake --build "$BUILD_DIR"
rm -f "$BUILDING"
lap build

# --- 5. The Python package: pip install . into the environment ------------------------
# scikit-build-core builds it in build-py/ (kept: a rebuild compiles only what changed). The
# environment is shared by the clones that use the same requirements, so the stamp names this
# clone, and the install is redone when it is another's or a file it is built from is newer.
PKG_STAMP="$VENV/.iris-trace-installed"
pkg_sources=(pyproject.toml python src/trace src/capture/bench_names.h tools/attribute.cpp)
if [ "$(cat "$PKG_STAMP" 2>/dev/null)" = "$REPO_ROOT" ] && \
   [ -z "$(find "${pkg_sources[@]}" -newer "$PKG_STAMP" -print -quit)" ]; then
  say "Python package iris_trace up to date in $VENV"
else
  rm -f "$PKG_STAMP"
  say "installing the Python package iris_trace (pip install .) into $VENV"
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(cores)}" \
    "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps "$REPO_ROOT"
  printf '%s\n' "$REPO_ROOT" > "$PKG_STAMP.tmp" && mv "$PKG_STAMP.tmp" "$PKG_STAMP"
fi
lap "Python package"
say "ready in $SECONDS s ($(IFS=,; echo "${timings[*]}" | sed 's/,/, /g')): ./bench --help"
