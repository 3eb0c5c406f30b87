#!/usr/bin/env python3
"""What ctest's count hides: the pytest tests that skipped inside the ctest tests that run pytest.

ctest counts a pytest run (bench_smoke, analysis_pytest, ...) as one test that passed, however
many of its tests skipped: on a machine without a GPU every CUDA test in tests/smoke skips, and
on a GPU machine a skip there means a CUDA check did not run. Each pytest ctest writes a JUnit
report into BUILD/test-reports/ (tests/CMakeLists.txt); this prints, per ctest test, how many of
its tests ran and every skip with its reason. (GoogleTest's skips ctest shows itself, as
"Skipped" under "The following tests did not run".)

    tests/skip_summary.py BUILD_DIR

Exit 0 (skips are information, not failures); 2 when a report cannot be read."""

import glob
import os
import sys
import xml.etree.ElementTree as ET


def summarize(report):
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = failed = 0
    skips = []
    for suite in suites:
        for case in suite.iter("testcase"):
            total += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            skip = case.find("skipped")
            if skip is not None:
                where = f"{case.get('classname', '')}::{case.get('name', '')}".lstrip(":")
                skips.append((where, (skip.get("message") or "").strip()))
    return total, failed, skips


def main(argv):
    if len(argv) != 2:
        print("usage: tests/skip_summary.py BUILD_DIR", file=sys.stderr)
        return 2
    reports = sorted(glob.glob(os.path.join(argv[1], "test-reports", "*.xml")))
    if not reports:
        print(f"skip_summary: no pytest reports in {argv[1]}/test-reports (no pytest ctest ran)")
        return 0
    n_total = n_skipped = 0
    print("Inside ctest's pytest tests (ctest counts each as one):")
    for report in reports:
        name = os.path.basename(report)[: -len(".xml")]
        try:
            total, failed, skips = summarize(report)
        except (OSError, ET.ParseError) as e:
            print(f"skip_summary: {report}: not a readable JUnit report ({e})", file=sys.stderr)
            return 2
        n_total += total
        n_skipped += len(skips)
        ran = total - len(skips)
        print(
            f"  {name}: {ran} of {total} ran"
            + (f", {failed} failing" if failed else "")
            + (f", {len(skips)} SKIPPED:" if skips else "")
        )
        for where, why in skips:
            print(f"    {where}: {why}")
    # Worded so it is not read as the run's closing "N passed, N failed" line (ctest's is).
    print(f"Skipped inside them: {n_skipped} of {n_total} pytest tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
