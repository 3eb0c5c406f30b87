# Shared paths for the scripts in this folder; sourced, not run.
# The heavy Python environment (torch with its CUDA wheels, ~4 GB) lives in a cache outside
# the clone, keyed by requirements.txt and the Python version, so a fresh clone (as CI makes)
# reuses it; .venv in the clone is a link to it.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${IRIS_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iris-gpu-overhead}"
BUILD_DIR="${BUILD_DIR:-$REPO_ROOT/build}"
PYTHON_BASE="${PYTHON:-python3}"

# A family's flags from experiments/sweeps.toml into the array named VAR (the [env] variables
# set in the environment apply): sweep_flags VAR FAMILY [--profile gpu]
sweep_flags() {
  local -n _flags=$1
  local text
  shift
  text=$(cd "$REPO_ROOT" && python3 -m experiments.sweeps flags "$@") || return 1
  mapfile -t _flags <<< "$text"
}

say() { printf '\033[1m[%s]\033[0m %s\n' "$(basename "$0" .sh)" "$*"; }
die() { printf '[%s] error: %s\n' "$(basename "$0" .sh)" "$*" >&2; exit 1; }

venv_dir() {
  local key
  key=$( { cat "$REPO_ROOT/requirements.txt"; "$PYTHON_BASE" -c 'import sys; print(sys.version_info[:2])'; } | sha256sum | cut -c1-12)
  echo "$CACHE_ROOT/venv-$key"
}

# Cores this process may use. Not plain nproc: it answers OMP_NUM_THREADS when that is set.
cores() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc; }

# A short name for this machine, used as the results folder: the GPU when there is one
# (nvidia-h200), else the CPU model and core count (cpu-intel-xeon-processor-2c).
machine_name() {
  local name
  if command -v nvidia-smi >/dev/null 2>&1 && name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1) && [ -n "$name" ]; then
    echo "$name" | tr 'A-Z' 'a-z' | sed -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//' -e 's/-[0-9]\+gb.*$//'
  else
    name=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)
    [ -n "$name" ] || name=unknown-cpu
    echo "cpu-$(echo "$name" | tr 'A-Z' 'a-z' | sed -e 's/([^)]*)//g' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')-$(cores)c"
  fi
}

# proc, a read-only sys and the root's own /dev (a tmpfs with the few nodes a build needs, its
# own ptys and shm) in a chroot ROOT, not the host's /dev bound in: nothing run as root in
# there can touch the host's device nodes. The caller unmounts (umount -R) when done.
mount_root_dev() {  # ROOT
  local root=$1 node i
  mount -t proc proc "$root/proc"
  mount -t sysfs -o ro sys "$root/sys"
  mount -t tmpfs -o mode=755,nosuid dev "$root/dev"
  for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
    set -- $node; mknod -m 666 "$root/dev/$1" c "$2" "$3"
  done
  mkdir "$root/dev/pts" "$root/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
  mount -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
  ln -s pts/ptmx "$root/dev/ptmx"
  ln -s /proc/self/fd "$root/dev/fd"
  for i in 0 1 2; do ln -s "/proc/self/fd/$i" "$root/dev/$(echo stdin stdout stderr | cut -d' ' -f$((i + 1)))"; done
}

# The mounts under the chroot $ROOT, deepest first, and their removal.
mounted_under_root() { awk -v r="$ROOT/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r; }
unmount_all() {
  local m
  for m in $(mounted_under_root); do umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
# Before a script touches $ROOT: what a run killed before its trap left mounted is unmounted
# first (removing the root with /dev bound inside it would delete the host's /dev), and every
# mount is undone when the script exits.
unmount_root_at_start() {
  unmount_all
  [ -z "$(mounted_under_root)" ] || die "cannot unmount $(mounted_under_root | tr '\n' ' '); not touching $ROOT"
  trap unmount_all EXIT
}
