"""Which kernel each compute-sanitizer finding names, so a failure is read against the
hand-written kernels only when it is theirs.

    python3 -m scripts.sanitizer_findings compute_sanitizer.log [--ours fused_epoch_kernel,persistent_train_kernel]

compute-sanitizer's exit code (--error-exitcode) also counts CUDA API errors raised inside
LibTorch or cuBLAS, and races or invalid accesses in kernels that are not ours. This reads
its log (lines prefixed "========= "), groups the findings by tool section, kind and the
kernel (or API call) each names, marks the ones in our kernels, and exits 1 when one of
ours has a finding, else 0 (2 for an unreadable log)."""

import argparse
import re
import sys
from collections import Counter

PREFIX = "========="
OURS = ("fused_epoch_kernel", "persistent_train_kernel")
# Lines that are not findings: banners, summaries, frames, details of the finding above.
NOT_A_FINDING = re.compile(
    r"^(COMPUTE-SANITIZER|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application"
    r"|Saved host backtrace|Host Frame|Device Frame|Address|Access|and is|by thread|at |in )"
)
AT_KERNEL = re.compile(r"\bat (?:0x[0-9a-f]+ in )?([A-Za-z_][\w:<>, *&]*?)(?:\(|\+0x|$)")
API_CALL = re.compile(r"on CUDA API call to (\w+)")
TOOL_EXIT = re.compile(r"^(memcheck|racecheck|synccheck|initcheck) exit (\d+)")
NUMBERS = re.compile(r"\b(0x[0-9a-f]+|\d+)\b")


def parse(lines):
    """Findings as (tool, kind, where), where is a kernel name or 'API call cudaX'."""
    findings, tool, current = [], "unknown", None

    def close():
        if current:
            findings.append((tool, current["kind"], current["where"] or "(no kernel named)"))

    for raw in lines:
        line = raw.rstrip("\n")
        m = TOOL_EXIT.match(line)
        if m:  # gpu_check prints "<tool> exit N" after each run: the lines above were that tool's
            close()
            current = None
            findings = [(m.group(1) if t == "unknown" else t, k, w) for t, k, w in findings]
            continue
        if not line.startswith(PREFIX):
            continue
        body = line[len(PREFIX) :]
        text = body.strip()
        if not text:
            continue
        starts_finding = not body.startswith("     ") and not NOT_A_FINDING.match(text)
        if starts_finding:
            close()
            current = {"kind": NUMBERS.sub("N", text.split(" at ")[0]).rstrip(". "), "where": None}
            api = API_CALL.search(text)
            if api:
                current["kind"] = "CUDA API error"
                current["where"] = "API call " + api.group(1)
            else:
                at = AT_KERNEL.search(text)  # racecheck names the kernel on the finding's own line
                if at:
                    current["where"] = at.group(1).strip()
        elif current and current["where"] is None:
            at = AT_KERNEL.search(text)
            if text.startswith("at ") and at:
                current["where"] = at.group(1).strip()
    close()
    return findings


def is_ours(where, ours):
    return any(re.search(rf"\b{re.escape(name)}\b", where) for name in ours)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--ours", default=",".join(OURS), help="comma-separated names of our kernels")
    args = ap.parse_args(argv)
    ours = [n for n in args.ours.split(",") if n]
    try:
        with open(args.log, errors="replace") as f:
            findings = parse(f)
    except OSError as e:
        print(f"sanitizer_findings: cannot read {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    if not findings:
        print("compute-sanitizer: no findings")
        return 0
    counts = Counter(findings)
    mine = sum(n for (t, k, w), n in counts.items() if is_ours(w, ours))
    print(
        f"compute-sanitizer: {sum(counts.values())} findings, {mine} in our kernels ({', '.join(ours)})"
    )
    for (tool, kind, where), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        tag = "OURS " if is_ours(where, ours) else "other"
        print(f"  [{tag}] {tool:9s} {n:4d} x {kind} -- {where}")
    return 1 if mine else 0


if __name__ == "__main__":
    sys.exit(main())
