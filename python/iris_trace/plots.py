"""visualize=True for iris_trace.hta: the charts HTA draws with plotly, drawn with matplotlib
(an optional dependency: pip install 'iris-trace[plot]')."""


def _plt():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(
            "visualize=True draws with matplotlib: pip install matplotlib, or pass visualize=False"
        ) from e
    return plt


def temporal(df):
    plt = _plt()
    shares = ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]
    ax = df.plot.bar(x="rank", y=shares, stacked=True)
    ax.set_title("Temporal breakdown across ranks")
    ax.set_ylabel("% of kernel time")
    plt.show()


def idle(df, rank, pctg):
    plt = _plt()
    col = "idle_time_ratio" if pctg else "idle_time"
    table = df.pivot_table(index="stream", columns="idle_category", values=col, aggfunc="sum")
    ax = table.plot.bar(stacked=True)
    ax.set_title(f"Idle time breakdown on rank {rank} per CUDA stream")
    ax.set_ylabel("share of idle time" if pctg else "idle time (us)")
    plt.show()


def launch_stats(rank, events, runtime_cutoff, launch_delay_cutoff):
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    axes[0].scatter(events["cpu_duration"], events["gpu_duration"], s=4)
    axes[0].set_xlabel("CPU duration (us)")
    axes[0].set_ylabel("GPU duration (us)")
    axes[0].set_title(f"rank {rank}: launch call vs its GPU event")
    axes[1].hist(events["launch_delay"], bins=50)
    axes[1].axvline(launch_delay_cutoff, color="red")
    axes[1].set_xlabel("launch delay (us)")
    axes[1].set_title(f"launch delays (cutoff {launch_delay_cutoff} us)")
    fig.tight_layout()
    plt.show()


def comm_comp_overlap(df):
    plt = _plt()
    ax = df.plot.bar(x="rank", y="comp_comm_overlap_pctg", legend=False)
    ax.set_title("Computation-communication overlap")
    ax.set_ylabel("% of communication time overlapped")
    plt.show()


def kernel_breakdown(kernel_type_df):
    plt = _plt()
    shown = kernel_type_df[kernel_type_df["percentage"] > 0]
    ax = shown.plot.pie(y="percentage", labels=shown["kernel_type"], legend=False)
    ax.set_title("Kernel Type Percentage Across All Ranks")
    ax.set_ylabel("")
    plt.show()


def stragglers(s):
    """HTA's "Potential Stragglers" chart: each rank's start of the picked kernel, one panel per
    iteration, stragglers red."""
    plt = _plt()
    iterations = sorted(set(s["metric_iteration"]))
    _, axes = plt.subplots(1, len(iterations), sharey=True, squeeze=False)
    for ax, it in zip(axes[0], iterations):
        rows = [k for k, i in enumerate(s["metric_iteration"]) if i == it]
        ax.bar(
            [str(s["metric_rank"][k]) for k in rows],
            [s["metric"][k] for k in rows],
            color=["red" if s["is_straggler"][k] else "blue" for k in rows],
        )
        ax.set_title(f"iteration {it}")
        ax.set_xlabel("rank")
    axes[0][0].set_ylabel("normalized_start_time")
    plt.suptitle("Potential Stragglers")
    plt.show()
