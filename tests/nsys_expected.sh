#!/usr/bin/env bash
# Nsight Systems' own summaries of the real exports in tests/data/nsys: the reference the
# importer is tested against (trace_tests NsysAgreement). For each EXPORT.sqlite.gz,
# DIR/EXPORT_<report>.csv.gz holds what
#   nsys stats --report cudaapisum,gpukernsum,nvtxsum,gpumemtimesum --format csv EXPORT.sqlite
# writes (report names as in Nsight Systems 2022.4, which scripts/nsys_setup.sh unpacks; an
# empty CSV where nsys skips a report because the export holds no data of its kind).
#   tests/nsys_expected.sh tests/data/nsys/expected          made the committed files
#   tests/nsys_expected.sh --check tests/data/nsys/expected  makes them again and compares
# (ctest nsys_stats_reference), so a different nsys or a changed export shows.
# Exit 77 (a ctest skip) when there is no nsys, with the reason.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
dir="${1:?usage: nsys_expected.sh [--check] DIR}"
nsys="$("$here/../scripts/nsys_path.sh" 2>&1)" || { echo "SKIP: $nsys"; exit 77; }
echo "nsys_expected: $("$nsys" --version)"
reports=(cudaapisum gpukernsum nvtxsum gpumemtimesum)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
[ "$check" = 1 ] || mkdir -p "$dir"
differ=0
for gz in "$here"/data/nsys/*.sqlite.gz; do
  name="$(basename "$gz" .sqlite.gz)"
  gzip -dc "$gz" > "$tmp/$name.sqlite"
  (IFS=,; "$nsys" stats --quiet --report "${reports[*]}" --format csv --output "$tmp/$name" "$tmp/$name.sqlite" >/dev/null)
  for report in "${reports[@]}"; do
    csv="$tmp/${name}_$report.csv"
    [ -f "$csv" ] || : > "$csv"
    if [ "$check" = 1 ]; then
      if ! gzip -dc "$dir/${name}_$report.csv.gz" | cmp -s - "$csv"; then
        echo "nsys_expected: $name $report: nsys now says otherwise than $dir/${name}_$report.csv.gz:"
        gzip -dc "$dir/${name}_$report.csv.gz" | diff - "$csv" | head -10 || true
        differ=1
      fi
    else
      gzip -9nc "$csv" > "$dir/${name}_$report.csv.gz"
    fi
  done
done
if [ "$check" = 1 ]; then
  [ "$differ" = 0 ] && echo "nsys_expected: every report in $dir is what this nsys says"
  exit "$differ"
fi
echo "nsys_expected: $(ls "$dir" | wc -l) files in $dir"
