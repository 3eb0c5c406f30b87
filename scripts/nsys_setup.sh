#!/usr/bin/env bash
# Nsight Systems 2022.4.2 from Debian 12's non-free section, unpacked (never installed) into
# the cache beside the Python environment: NVIDIA's `nsys` (profile, stats, export) and the
# `nsys-ui` timeline viewer, on a machine with or without a GPU, with no NVIDIA driver package
# pulled in. Called by scripts/setup.sh; idempotent (a second run checks and returns).
#   - The packages come through a private apt source list and state folder in the cache
#     (Debian's archive key checks them): the machine's own apt configuration is untouched.
#   - `dpkg-deb -x` of nsight-systems and nsight-systems-target (172 MB downloaded, 600 MB
#     unpacked), then the two fixes that make the unpacked tree run: nsys looks for its
#     importer in .../x86_64-linux-gnu/nsight-systems/host-linux-x64, which the package puts
#     in .../nsight-systems/host-linux-x64 (a link), and the importer's libssh.so is a link
#     relative to /usr/lib that must reach the system's libssh-4 (setup.sh installs it).
# On failure it says why, removes what it half made, and exits 1: setup.sh carries on, and the
# nsys tests skip, naming the reason (scripts/nsys_path.sh). IRIS_NO_NSYS=1 skips it.
set -euo pipefail
. "$(dirname "$0")/common.sh"

VERSION=2022.4.2.1~11.8.0-5~deb12u1
DEST="$CACHE_ROOT/nsight-systems-2022.4.2"
REASON="$CACHE_ROOT/nsight-systems.failed"   # why the last attempt failed, for the tests' skip
MIRROR="${IRIS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

fail() {
  mkdir -p "$CACHE_ROOT"
  printf '%s\n' "$*" > "$REASON"
  say "Nsight Systems not set up: $*; everything else works, and the nsys tests skip"
  exit 1
}

trap 'fail "stopped at line $LINENO of $0"' ERR
if [ "${IRIS_NO_NSYS:-0}" = 1 ]; then
  fail "IRIS_NO_NSYS=1"
fi
if [ -f "$DEST/.complete" ] && "$DEST/usr/bin/nsys" --version >/dev/null 2>&1; then
  rm -f "$REASON"
  say "Nsight Systems present ($DEST/usr/bin/nsys: $("$DEST/usr/bin/nsys" --version))"
  exit 0
fi
start=$SECONDS
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || fail "no apt-get or dpkg-deb (not Debian?)"
[ -e /usr/lib/x86_64-linux-gnu/libssh.so.4 ] || fail "libssh-4 is not installed (setup.sh's Debian packages)"
[ "$(dpkg --print-architecture)" = amd64 ] || fail "Debian ships Nsight Systems for amd64 only"

APT="$CACHE_ROOT/apt-nonfree"
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/etc"
touch "$APT/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR bookworm non-free" > "$APT/etc/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$APT/etc/sources.list" -o "Dir::Etc::SourceParts=$APT/etc/none"
          -o "Dir::State::Lists=$APT/lists" -o "Dir::State::status=$APT/status" -o "Dir::Cache=$APT"
          -o "Dir::Cache::archives=$APT/archives" -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
say "fetching Nsight Systems 2022.4.2 from Debian non-free (172 MB, once) through $APT"
apt-get "${apt_opts[@]}" -qq update || fail "apt-get update of Debian non-free failed (no network?)"
work="$(mktemp -d "$CACHE_ROOT/nsight-systems.tmp.XXXXXX")"
trap 'rm -rf "$work"' EXIT
( cd "$work" && apt-get "${apt_opts[@]}" -qq download "nsight-systems=$VERSION" "nsight-systems-target=$VERSION" ) \
  || fail "apt-get download nsight-systems=$VERSION failed"
mkdir "$work/root"
for deb in "$work"/*.deb; do
  dpkg-deb -x "$deb" "$work/root" || fail "dpkg-deb -x $(basename "$deb") failed"
done
# Fix 1: nsys (target-linux-x64) looks for its importer beside itself.
ln -sfn ../../nsight-systems/host-linux-x64 "$work/root/usr/lib/x86_64-linux-gnu/nsight-systems/host-linux-x64"
# Fix 2: host-linux-x64/libssh.so -> ../../x86_64-linux-gnu/libssh.so.4, relative to /usr/lib.
ln -sfn /usr/lib/x86_64-linux-gnu/libssh.so.4 "$work/root/usr/lib/x86_64-linux-gnu/libssh.so.4"
"$work/root/usr/bin/nsys" --version >/dev/null 2>&1 || fail "the unpacked nsys does not run"
missing=$(ldd "$work/root/usr/lib/nsight-systems/host-linux-x64/QdstrmImporter" | { grep "not found" || true; } | sort -u | tr -s ' \t\n' ' ')
[ -z "$missing" ] || fail "nsys's importer misses libraries:$missing"
rm -rf "$DEST"
mv "$work/root" "$DEST"
touch "$DEST/.complete"   # last: an interrupted unpack is redone next time
rm -f "$REASON"
say "Nsight Systems unpacked into $DEST in $(( SECONDS - start )) s: $("$DEST/usr/bin/nsys" --version)"
