"""A wait for the host to settle before the timed rows: until it reads quiet, or a cap.

On the H200 run the first ItemSync rows after bench's 16-core build ran slower than all the
others (648-792 us an epoch against 528-573) while the GPU's busy time stayed flat: the host was
slow for a while after the build. So before its first timed row the GPU run flushes the build's
writes to disk (sync) and reads /proc once a second until, QUIET_WINDOWS seconds in a row, the
machine's processes keep at most BUSY_CORES cores busy, the hypervisor steals at most STEAL_SHARE
of the time and at most DIRTY_MIB of writes wait for the disk; or until max_s.

    python -m scripts.host_settle [--max_s S] [--tsv FILE]

prints the verdict (and writes one line per second to FILE); exit 0 either way: a host that never
reads quiet is said, not fatal. scripts/gpu_steps.py's `settle` step calls wait().
"""

import argparse
import os
import sys
import time
from dataclasses import dataclass, field

QUIET_WINDOWS = 3
BUSY_CORES = 0.5
STEAL_SHARE = 0.02
DIRTY_MIB = 64.0


@dataclass
class Sample:
    second: float  # since the wait began
    busy_cores: float  # cores busy in user, system and interrupts over the last window
    steal_share: float  # of the time, taken by the hypervisor
    dirty_mib: float  # Dirty + Writeback
    load1: float

    def quiet(self):
        return (
            self.busy_cores <= BUSY_CORES
            and self.steal_share <= STEAL_SHARE
            and self.dirty_mib <= DIRTY_MIB
        )


@dataclass
class Settled:
    quiet: bool
    waited_s: float
    samples: list = field(default_factory=list)

    def note(self):
        last = self.samples[-1] if self.samples else None
        figures = (
            f"busy {last.busy_cores:.2f} cores, steal {100 * last.steal_share:.1f} %, "
            f"dirty {last.dirty_mib:.0f} MiB, load {last.load1:.2f}"
            if last
            else "no reading"
        )
        verdict = "quiet after" if self.quiet else "NOT quiet after"
        return f"{verdict} {self.waited_s:.0f} s ({figures})"


def read_proc():
    """(/proc/stat's cpu line as numbers, /proc/meminfo's text, /proc/loadavg's text)."""
    with open("/proc/stat") as f:
        cpu = [int(x) for x in f.readline().split()[1:]]
    with open("/proc/meminfo") as f:
        meminfo = f.read()
    with open("/proc/loadavg") as f:
        loadavg = f.read()
    return cpu, meminfo, loadavg


def dirty_mib(meminfo):
    kb = 0
    for line in meminfo.splitlines():
        name, _, rest = line.partition(":")
        if name in ("Dirty", "Writeback"):
            kb += int(rest.split()[0])
    return kb / 1024


def sample(before, after, cores, second):
    """A window between two readings of read_proc()."""
    # user nice system idle iowait irq softirq steal (guest time is within user)
    b, a = before[0][:8], after[0][:8]
    d = [y - x for x, y in zip(b, a)]
    total = sum(d) or 1
    busy = d[0] + d[1] + d[2] + d[5] + d[6]
    return Sample(
        second,
        busy / total * cores,
        d[7] / total,
        dirty_mib(after[1]),
        float(after[2].split()[0]),
    )


def wait(max_s, read=read_proc, sleep=time.sleep, clock=time.monotonic, cores=None, flush=os.sync):
    """Flushes the writes, then reads once a second until QUIET_WINDOWS quiet windows in a row
    or max_s; the readings and the verdict."""
    cores = cores or os.cpu_count() or 1
    t0 = clock()
    flush()
    result = Settled(False, 0.0)
    run = 0
    before = read()
    while True:
        sleep(1.0)
        after = read()
        s = sample(before, after, cores, clock() - t0)
        before = after
        result.samples.append(s)
        run = run + 1 if s.quiet() else 0
        result.waited_s = s.second
        if run >= QUIET_WINDOWS:
            result.quiet = True
            return result
        if s.second >= max_s:
            return result


def write_tsv(path, settled):
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write("second\tbusy_cores\tsteal_share\tdirty_mib\tload1\tquiet\n")
        for s in settled.samples:
            f.write(
                f"{s.second:.1f}\t{s.busy_cores:.3f}\t{s.steal_share:.4f}\t{s.dirty_mib:.1f}\t"
                f"{s.load1:.2f}\t{int(s.quiet())}\n"
            )
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max_s", type=float, default=30.0, help="the cap [%(default)s]")
    ap.add_argument("--tsv", help="one line per second: the readings")
    args = ap.parse_args(argv)
    if args.max_s <= 0:
        ap.error(f"--max_s: expected seconds > 0, got {args.max_s}")
    settled = wait(args.max_s)
    if args.tsv:
        write_tsv(args.tsv, settled)
    print(settled.note())
    return 0


if __name__ == "__main__":
    sys.exit(main())
