"""Compares iris_trace.hta.TraceAnalysis's frames with HTA 0.5.0's own (pickled by
experiments/hta_frames_reference.py): every frame with pandas.testing.assert_frame_equal
(columns, dtypes, index, values to the last bit), and a call HTA raised in must raise the same
exception type."""

import pandas.testing as pdt


def _ours(f):
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001 - compared with HTA's own failure
        return ("error", f"{type(e).__name__}: {e}")


def our_frames(analysis, ranks):
    return {
        "temporal": _ours(lambda: analysis.get_temporal_breakdown(visualize=False)),
        "idle": _ours(
            lambda: analysis.get_idle_time_breakdown(
                ranks=ranks, visualize=False, show_idle_interval_stats=True
            )
        ),
        "launch": _ours(
            lambda: analysis.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
        ),
    }


def compare(reference, ours):
    """A list of differences (empty when equal), one line each."""
    out = []
    for call in ("temporal", "idle", "launch"):
        (rk, rv), (ok, ov) = reference[call], ours[call]
        if rk != ok:
            out.append(
                f"{call}: HTA {rk} ({rv if rk == 'error' else 'frames'}), ours {ok} ({ov if ok == 'error' else 'frames'})"
            )
            continue
        if rk == "error":
            if rv.split(":")[0] != ov.split(":")[0]:
                out.append(f"{call}: HTA raised {rv}, ours {ov}")
            continue
        pairs = []
        if call == "temporal":
            pairs = [("temporal", rv, ov)]
        elif call == "idle":
            pairs = [("idle", rv[0], ov[0]), ("idle stats", rv[1], ov[1])]
        else:
            if sorted(rv) != sorted(ov):
                out.append(f"launch: ranks {sorted(rv)} vs {sorted(ov)}")
                continue
            pairs = [(f"launch rank {r}", rv[r], ov[r]) for r in sorted(rv)]
        for name, a, b in pairs:
            try:
                pdt.assert_frame_equal(b, a, check_exact=True)
            except AssertionError as e:
                out.append(f"{name}: {str(e).strip()[:600]}")
    return out
