"""visualize=True for iris_trace.hta: HTA's charts, drawn with plotly as HTA draws them when
plotly is installed (HTA's own plotting library), else with matplotlib; with neither, the
ImportError says how to get one. Each chart is shown (plotly's Figure.show, matplotlib's
plt.show) and nothing is returned, as in HTA. Drawing with matplotlib warns how to get plotly."""

import warnings


def _library():
    """("plotly", plotly.express) or ("matplotlib", matplotlib.pyplot), the first importable."""
    try:
        import plotly.express as px

        return "plotly", px
    except ImportError:
        pass
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "visualize=True draws with plotly (HTA's charts) or matplotlib, and neither is "
            "installed: pip install 'iris-trace[plot]' (plotly), or pass visualize=False"
        ) from None
    warnings.warn(
        "plotly is not installed: drawing with matplotlib instead of HTA's plotly charts "
        "(pip install 'iris-trace[plot]' for those)",
        stacklevel=3,
    )
    return "matplotlib", plt


def temporal(df):
    kind, lib = _library()
    shares = ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]
    title = "Temporal breakdown across ranks"
    if kind == "plotly":
        fig = lib.bar(df, x="rank", y=shares, title=title, labels={"rank": "Rank"})
        fig.update_layout(yaxis_title="Percentage", legend_title="Time Breakdown")
        return fig.show()
    ax = df.plot.bar(x="rank", y=shares, stacked=True)
    ax.set_title(title)
    ax.set_ylabel("% of kernel time")
    lib.show()


def idle(df, rank, pctg):
    kind, lib = _library()
    col = "idle_time_ratio" if pctg else "idle_time"
    title = f"Idle time breakdown on rank {rank} per CUDA stream"
    y_title = "share of idle time" if pctg else "Idle time (us)"
    if kind == "plotly":
        fig = lib.bar(
            df,
            x="stream",
            y=col,
            color="idle_category",
            hover_data=["idle_time", "idle_time_ratio"],
            title=title,
        )
        fig.update_layout(yaxis_title=y_title, legend_title="Idle Time Breakdown")
        return fig.show()
    table = df.pivot_table(index="stream", columns="idle_category", values=col, aggfunc="sum")
    ax = table.plot.bar(stacked=True)
    ax.set_title(title)
    ax.set_ylabel(y_title)
    lib.show()


def launch_stats(rank, events, runtime_cutoff, launch_delay_cutoff):
    kind, lib = _library()
    if kind == "plotly":  # HTA's three histograms: short kernels, then the two outlier sets
        cpu = events["cpu_duration"]
        short = events[(cpu <= runtime_cutoff) & (events["gpu_duration"] < cpu)]
        runtime_label = {"cpu_duration": "Cuda Runtime Event Duration (us)"}
        lib.histogram(
            short,
            x="cpu_duration",
            labels=runtime_label,
            title=f"Short GPU kernels (gpu op duration < cpu op duration) on rank {rank}",
        ).show()
        lib.histogram(
            events[cpu > runtime_cutoff],
            x="cpu_duration",
            nbins=300,
            labels=runtime_label,
            title=f"Runtime Event Duration Outliers (duration > {runtime_cutoff} us) "
            f"on rank {rank}",
        ).show()
        lib.histogram(
            events[events["launch_delay"] > launch_delay_cutoff],
            x="launch_delay",
            nbins=300,
            labels={"launch_delay": "Launch Delay Duration (us)"},
            title=f"Launch Delay Outliers (duration > {launch_delay_cutoff} us) on rank {rank}",
        ).show()
        return
    fig, axes = lib.subplots(1, 2, figsize=(10, 4))
    axes[0].scatter(events["cpu_duration"], events["gpu_duration"], s=4)
    axes[0].set_xlabel("CPU duration (us)")
    axes[0].set_ylabel("GPU duration (us)")
    axes[0].set_title(f"rank {rank}: launch call vs its GPU event")
    axes[1].hist(events["launch_delay"], bins=50)
    axes[1].axvline(launch_delay_cutoff, color="red")
    axes[1].set_xlabel("launch delay (us)")
    axes[1].set_title(f"launch delays (cutoff {launch_delay_cutoff} us)")
    fig.tight_layout()
    lib.show()


def comm_comp_overlap(df):
    kind, lib = _library()
    title = "Computation-Communication Overlap"
    if kind == "plotly":
        fig = lib.bar(
            df,
            x="rank",
            y="comp_comm_overlap_pctg",
            title=title,
            labels={"rank": "Rank", "comp_comm_overlap_pctg": "Overlap (% of communication)"},
        )
        return fig.show()
    ax = df.plot.bar(x="rank", y="comp_comm_overlap_pctg", legend=False)
    ax.set_title(title)
    ax.set_ylabel("% of communication time overlapped")
    lib.show()


def kernel_breakdown(kernel_type_df, kernel_df, renderer=""):
    """The kernel types' pie; with plotly also, as HTA, each kernel's mean per rank (error bars
    to its min and max), shown with plotly's `renderer` ("": plotly's default)."""
    kind, lib = _library()
    shown = kernel_type_df[kernel_type_df["percentage"] > 0]
    title = "Kernel Type Percentage Across All Ranks"
    if kind == "plotly":
        show = {"renderer": renderer} if renderer else {}
        lib.pie(shown, values="percentage", names="kernel_type", title=title).show(**show)
        for (kernel_type, name), rows in kernel_df.groupby(["kernel_type", "name"], sort=False):
            if name == "others":
                continue
            lib.bar(
                rows,
                x="rank",
                y="mean (us)",
                error_y=rows["max (us)"] - rows["mean (us)"],
                error_y_minus=rows["mean (us)"] - rows["min (us)"],
                labels={"rank": "Rank", "mean (us)": "Mean Duration (us)"},
                title=f'Kernel type "{kernel_type}" - {name}',
            ).show(**show)
        return
    ax = shown.plot.pie(y="percentage", labels=shown["kernel_type"], legend=False)
    ax.set_title(title)
    ax.set_ylabel("")
    lib.show()


def stragglers(s):
    """HTA's "Potential Stragglers" chart: each rank's start of the picked kernel, one panel per
    iteration, stragglers red."""
    kind, lib = _library()
    n = len(s["metric"])
    if kind == "plotly":
        rows = {
            "rank": list(s["metric_rank"]),
            "iteration": list(s["metric_iteration"]),
            "normalized_start_time": list(s["metric"]),
            "is_straggler": ["Yes" if s["is_straggler"][k] else "No" for k in range(n)],
        }
        fig = lib.bar(
            rows,
            x="rank",
            y="normalized_start_time",
            facet_col="iteration",
            color="is_straggler",
            color_discrete_map={"Yes": "red", "No": "blue"},
            title="Potential Stragglers",
        )
        return fig.show()
    iterations = sorted(set(s["metric_iteration"]))
    _, axes = lib.subplots(1, len(iterations), sharey=True, squeeze=False)
    for ax, it in zip(axes[0], iterations):
        picked = [k for k in range(n) if s["metric_iteration"][k] == it]
        ax.bar(
            [str(s["metric_rank"][k]) for k in picked],
            [s["metric"][k] for k in picked],
            color=["red" if s["is_straggler"][k] else "blue" for k in picked],
        )
        ax.set_title(f"iteration {it}")
        ax.set_xlabel("rank")
    axes[0][0].set_ylabel("normalized_start_time")
    lib.suptitle("Potential Stragglers")
    lib.show()
