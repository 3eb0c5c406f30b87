#!/usr/bin/env bash
# Supplies a CUDA toolkit from NVIDIA's PyPI wheels when the machine has none, so the CUDA
# parts of the suite (kernels, CUPTI, NVTX) compile without a GPU or a system toolkit.
# Usage: scripts/cuda_from_pypi.sh VENV   (prints the toolkit's root on stdout, logs on stderr)
#
# The wheels go into the cached Python environment VENV, pinned to the version torch itself
# requires (torch 2.11.0: cuda-toolkit==13.0.2), so they match the CUDA that LibTorch was
# built with, and come from PyPI only. The cu13 wheels share one prefix
# (site-packages/nvidia/cu13), which becomes the toolkit root once the links nvcc and
# CMake expect are made. VENV/.cuda-toolkit-complete is written last: an interrupted or
# failed install is redone on the next run.
set -euo pipefail
. "$(dirname "$0")/common.sh"
exec 3>&1 1>&2   # only the root goes to stdout

VENV=${1:?usage: cuda_from_pypi.sh VENV}
PY="$VENV/bin/python"
[ -x "$PY" ] || { echo "cuda_from_pypi: $PY not found: expected a Python environment made by setup.sh" >&2; exit 2; }
MARKER="$VENV/.cuda-toolkit-complete"
# Beyond what torch already pulls (cudart, cupti, nvrtc, nvtx): the compiler and its parts.
EXTRAS=nvcc,crt,nvvm,cccl,cudart,cupti,nvtx,nvrtc

# torch's own pin, e.g. 'cuda-toolkit[cublas,...]==13.0.2; platform_system == "Linux"'.
TK_VERSION=$("$PY" - <<'EOF'
import importlib.metadata as md, re
for r in md.requires("torch") or []:
    m = re.match(r"cuda-toolkit(\[[^\]]*\])?\s*==\s*([0-9.]+)", r)
    if m:
        print(m.group(2)); break
EOF
)
[ -n "$TK_VERSION" ] || die "the installed torch does not require cuda-toolkit==X (a CPU-only torch?); cannot pick a matching CUDA toolkit from PyPI"
TK_MAJOR=${TK_VERSION%%.*}
ROOT=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/nvidia/cu$TK_MAJOR

toolkit_works() {
  [ -x "$ROOT/bin/nvcc" ] && "$ROOT/bin/nvcc" --version >/dev/null 2>&1 \
    && [ -e "$ROOT/lib/libcudart.so" ] && [ -e "$ROOT/lib/libcupti.so" ] \
    && [ -f "$ROOT/include/nvtx3/nvToolsExt.h" ] && [ -f "$ROOT/include/cuda_runtime.h" ]
}

if [ "$(cat "$MARKER" 2>/dev/null)" = "$TK_VERSION" ] && toolkit_works; then
  echo "$ROOT" >&3
  exit 0
fi

rm -f "$MARKER"
say "no system CUDA toolkit: installing CUDA $TK_VERSION from PyPI (cuda-toolkit[$EXTRAS]: the compiler adds ~100 MB of downloads to what torch already has) into $VENV"
"$PY" -m pip install --progress-bar off "cuda-toolkit[$EXTRAS]==$TK_VERSION"

# The links a CUDA toolkit has and the wheels lack:
#  - unversioned libX.so beside libX.so.N, which the linker and FindCUDAToolkit look for;
#  - lib64 beside lib and targets/x86_64-linux/{include,lib}, which nvcc.profile names;
#  - bin/crt comes with the nvcc wheel, nvvm/bin/cicc with the nvvm wheel.
( cd "$ROOT/lib"
  for f in lib*.so.*; do
    base=${f%%.so.*}.so
    [ -e "$base" ] || ln -sfn "$f" "$base"
  done )
ln -sfn lib "$ROOT/lib64"
mkdir -p "$ROOT/targets/x86_64-linux"
ln -sfn ../../include "$ROOT/targets/x86_64-linux/include"
ln -sfn ../../lib "$ROOT/targets/x86_64-linux/lib"

toolkit_works || die "the CUDA $TK_VERSION wheels in $ROOT are incomplete (nvcc, libcudart, libcupti or nvtx3 headers missing)"
# nvcc must compile and link a kernel here, or CMake's CUDA checks fail later with less clear errors.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '__global__ void k(int *p) { *p = 1; }\nint main() { k<<<1, 1>>>(nullptr); return 0; }\n' > "$tmp/t.cu"
"$ROOT/bin/nvcc" -arch=sm_90 -o "$tmp/t" "$tmp/t.cu" \
  || die "nvcc from the CUDA $TK_VERSION wheels ($ROOT/bin/nvcc) cannot compile a test kernel"
echo "$TK_VERSION" > "$MARKER.tmp" && mv "$MARKER.tmp" "$MARKER"
say "CUDA $TK_VERSION from PyPI ready in $ROOT"
echo "$ROOT" >&3
