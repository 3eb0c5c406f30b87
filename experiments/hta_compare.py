"""Compares iris_trace.hta.TraceAnalysis's frames with HTA's own (pickled by
experiments/hta_frames_reference.py): every frame with pandas.testing.assert_frame_equal
(columns, dtypes, index, values to the last bit), and a call HTA raised in must raise the same
exception type. A reference without a call (older pickles) leaves it out."""

import pandas.testing as pdt

from experiments.hta_frames_reference import EXTRA_CALLS


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
        "queue": _ours(lambda: analysis.get_queue_length_summary(ranks=ranks)),
        "overlap": _ours(lambda: analysis.get_comm_comp_overlap(visualize=False)),
        "steps": _ours(lambda: analysis.get_profiler_steps()),
        **{name: _ours(lambda f=f: f(analysis, ranks)) for name, f in EXTRA_CALLS.items()},
    }


def _frame_pairs(call, rv, ov):
    """(name, HTA's frame, ours) for one call's result; a str when they cannot be paired."""
    if call == "idle":
        return [("idle", rv[0], ov[0]), ("idle stats", rv[1], ov[1])]
    if call in ("launch", "queue_series", "memory_bw_series"):  # {rank: frame}
        if sorted(rv) != sorted(ov):
            return f"{call}: ranks {sorted(rv)} vs {sorted(ov)}"
        return [(f"{call} rank {r}", rv[r], ov[r]) for r in sorted(rv)]
    if call.startswith("kernels"):  # (kernel_type_df, kernel_df)
        return [(f"{call} types", rv[0], ov[0]), (f"{call} kernels", rv[1], ov[1])]
    if call == "steps" or call.startswith("stragglers"):  # a list of numbers, not a frame
        return [] if list(rv) == list(ov) else f"{call}: HTA {list(rv)}, ours {list(ov)}"
    if rv is None or ov is None:
        return [] if rv is None and ov is None else f"{call}: HTA {rv is None}, ours {ov is None}"
    return [(call, rv, ov)]


def compare(reference, ours):
    """A list of differences (empty when equal), one line each."""
    out = []
    for call in ("temporal", "idle", "launch", "queue", "overlap", "steps", *EXTRA_CALLS):
        if call not in reference:
            continue
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
        pairs = _frame_pairs(call, rv, ov)
        if isinstance(pairs, str):
            out.append(pairs)
            continue
        for name, a, b in pairs:
            try:
                pdt.assert_frame_equal(b, a, check_exact=True)
            except AssertionError as e:
                out.append(f"{name}: {str(e).strip()[:600]}")
    return out
