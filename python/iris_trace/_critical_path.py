"""TraceAnalysis.critical_path_analysis's result: what HTA's CPGraph.summary() says (the share of
the annotation instance's critical path by bound_by class), from the diagnosis' path
(src/trace/analyze/hta_critical_path.h says how its classes map onto HTA's). There is no graph
to walk or overlay: HTA's other CPGraph methods are not offered."""

import pandas as pd


class CriticalPath:
    """The critical path of one rank's annotation instance(s): summary() as HTA's, the window
    (window_us: start and end, the trace's own clock) and the time per class (bound_by_us)."""

    def __init__(self, rank, annotation, figures, data_load_events=()):
        self.rank, self.annotation = rank, annotation
        self.window_us = (figures["start_ns"] / 1e3, figures["end_ns"] / 1e3)
        ns = dict(figures["by_class"])
        # HTA's bound_by: a host event whose name a data_load_events regex finds is data_loading.
        loading = sum(
            n for name, n in figures["cpu_by_name"] if any(p.search(name) for p in data_load_events)
        )
        loading = min(loading, ns.get("cpu_bound", 0))
        if loading:
            ns["cpu_bound"] -= loading
            ns["data_loading"] = loading
        ns = {k: v for k, v in ns.items() if v}
        self.bound_by_us = pd.Series(
            [v / 1e3 for v in ns.values()],
            index=pd.Index(list(ns), name="bound_by"),
            name="duration",
            dtype="float64",
        ).sort_index()

    def summary(self):
        """bound_by -> % of the critical path, as HTA's summary() (sorted by class name)."""
        print("Critical Path broken down by boundedness = (in % of duration)")
        return self.bound_by_us / self.bound_by_us.sum() * 100

    def __repr__(self):
        lo, hi = self.window_us
        return f"CriticalPath(rank={self.rank}, annotation={self.annotation!r}, {hi - lo:.0f} us)"
