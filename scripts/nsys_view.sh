#!/usr/bin/env bash
# What a user sees in Nsight Systems, rendered without a screen: records one ItemSync row of
# bench under nsys, one epoch per report (an NVTX capture range on our `epoch` range, so the
# timeline's default view is that epoch), and has nsys-ui draw that view under Xvfb into a PNG.
#   scripts/nsys_view.sh [cpu|cuda] [OUT.png]   record and render (default: cpu, into
#       results/<machine>/nsys-itemsync-<device>-epoch.png)
#   scripts/nsys_view.sh --report FILE OUT.png  render a report made elsewhere (.nsys-rep, or
#       the .qdstrm an nsys leaves when it has no importer, as on the GPU machine)
# Needs scripts/nsys_setup.sh's Nsight Systems (nsys-ui is in the same package), a built bench
# (scripts/setup.sh), and for the GUI Xvfb and a few X libraries, installed here when missing
# (root or sudo). nsys-ui's first-run questions (usage data: no; options preset: the default)
# are answered in a private HOME, made afresh and removed, so the user's own settings are
# neither read nor changed. About 1-2 minutes (bench starts, nsys imports each report).
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$REPO_ROOT"

# nsys-ui's libraries that Debian's Nsight Systems package depends on but a server may lack.
GUI_PKGS=(xvfb libxcb-icccm4 libxcb-keysyms1 libxcb-xinerama0 libwayland-cursor0 libwayland-egl1 libxkbcommon-x11-0
          libxcb-image0 libxcb-render-util0 libxcb-cursor0 libgl1 libegl1 libopengl0 libnss3 libasound2 libxtst6
          libxkbfile1 libxdamage1 libxcomposite1 fonts-dejavu-core)
# Epochs recorded, one report each: 2 warm-up (separate model) and the timed run's first 6.
# The one drawn is the shortest of the timed ones (scripts/nsys_shortest_epoch.py says why).
WARMUP=2 CAPTURED=8

report="" device=cpu
if [ "${1:-}" = --report ]; then
  report="$(readlink -f "${2:?usage: nsys_view.sh --report FILE OUT.png}")"
  out="${3:?usage: nsys_view.sh --report FILE OUT.png}"
else
  device="${1:-cpu}"
  [ "$device" = cpu ] || [ "$device" = cuda ] || die "device must be cpu or cuda, not $device"
  out="${2:-results/$(machine_name)/nsys-itemsync-$device-epoch.png}"
fi
nsys="$(scripts/nsys_path.sh)" || die "no nsys (scripts/nsys_setup.sh)"
ui="$(dirname "$(readlink -f "$nsys")")/../host-linux-x64/nsys-ui"
[ -x "$ui" ] || ui="$(dirname "$nsys")/nsys-ui"
[ -x "$ui" ] || die "no nsys-ui beside $nsys"

missing=()
for p in "${GUI_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing what nsys-ui needs to draw under Xvfb: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -z "$report" ]; then
  [ -x "$BUILD_DIR/bench" ] || die "$BUILD_DIR/bench is not built (scripts/setup.sh)"
  traces=nvtx,osrt
  [ "$device" = cpu ] || traces=cuda,nvtx,osrt
  say "recording ItemSync/$device under nsys -t $traces, one report per epoch, the first $CAPTURED epochs"
  # One torch thread: the picture is of one epoch's phases, not of OpenMP's spinning workers.
  # nsys ends bench after the last capture (repeat-shutdown), so its exit status is not 0:
  # the reports are the proof.
  OMP_NUM_THREADS=1 "$nsys" profile -t "$traces" --sample=none --cpuctxsw=none \
    --capture-range=nvtx --nvtx-capture=epoch@iris --capture-range-end="repeat-shutdown:$CAPTURED" \
    --force-overwrite true -o "$work/epoch" \
    "$BUILD_DIR/bench" --benchmark_filter="^ItemSync/$device/interval:1/print100:0/batch:120/" --devices="$device" \
    --intervals=1 --print100=0 --batches=120 --epochs=20 --warmup_epochs=$WARMUP > "$work/profile.log" 2>&1 || true
  exports=()
  for i in $(seq $((WARMUP + 1)) "$CAPTURED"); do
    [ -f "$work/epoch.$i.nsys-rep" ] || { tail -20 "$work/profile.log"; die "nsys made no $work/epoch.$i.nsys-rep"; }
    "$nsys" export --type sqlite --quiet true -o "$work/epoch.$i.sqlite" "$work/epoch.$i.nsys-rep" >/dev/null
    exports+=("$work/epoch.$i.sqlite")
  done
  pick="$("$REPO_ROOT/.venv/bin/python" -m scripts.nsys_shortest_epoch "${exports[@]}" 2> "$work/durations")"
  report="${pick%.sqlite}.nsys-rep"
  say "timed epochs under nsys (us): $(cat "$work/durations"); drawing the shortest, $(basename "$report")"
elif head -c 64 "$report" | grep -aq "Nsight Systems Stream"; then
  # A raw stream: this side's importer turns it into a report (on a copy: it writes its input).
  importer="$(dirname "$(readlink -f "$nsys")")/../host-linux-x64/QdstrmImporter"
  cp "$report" "$work/in.qdstrm"
  "$importer" -i "$work/in.qdstrm" -o "$work/in.nsys-rep" > "$work/import.log" 2>&1 \
    || { tail -5 "$work/import.log"; die "$importer could not import $report"; }
  report="$work/in.nsys-rep"
fi

# A private HOME whose settings answer the first-run questions.
home="$work/home"
mkdir -p "$home/.config/NVIDIA Corporation"
cat > "$home/.config/NVIDIA Corporation/NVIDIA Nsight Systems.ini" <<'EOF'
[CorePlugin.Privacy]
AskedFor_NVIDIA%20Nsight%20Systems_2022.4.2=HasAsked
CorePlugin.AllowAnalytics=false

[QuadDPlugin.OptionsPreset]
QuadDPlugin.AskedFor_NVIDIA%20Nsight%20Systems_2022.4.2=HasAsked
QuadDPlugin.OptionsPreset=graphicsPreset
EOF
cp "$report" "$work/view.nsys-rep"
say "drawing the timeline with nsys-ui --screenshot under Xvfb"
HOME="$home" XDG_RUNTIME_DIR="$work" timeout 300 xvfb-run -a -s "-screen 0 1600x900x24" \
  "$ui" --no-splash --screenshot "$work/view.nsys-rep" > "$work/ui.log" 2>&1 \
  || { tail -5 "$work/ui.log"; die "nsys-ui --screenshot failed"; }
[ -f "$work/view.png" ] || { tail -5 "$work/ui.log"; die "nsys-ui wrote no screenshot"; }
# The view as drawn, less the empty space below the last row (a smaller file to commit).
mkdir -p "$(dirname "$out")"
"$REPO_ROOT/.venv/bin/python" - "$work/view.png" "$out" <<'EOF'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
px = im.load()
background = px[w // 2, h - 40]
# The lowest row of pixels in the timeline pane (right of the row names, above the bottom
# scroll bar) that is not background; everything below it is empty.
last = 0
for y in range(h - 40):
    if any(px[x, y] != background for x in range(230, w - 30, 2)):
        last = y
im.crop((0, 0, w, min(h, last + 16))).save(sys.argv[2], optimize=True)
EOF
say "wrote $out ($(du -h "$out" | cut -f1)) from $(basename "$report")"
