"""The trace pages' plots: per step, where the host's and the GPU's time went; the launch queue's
depth over one step; and the index's figure setting a deep queue beside an empty one."""

import numpy as np

from analysis.fmt import fmt_bar_value
from analysis.trace_pages import stats

HOST_PARTS = [
    ("launch_api_us", "launch calls"),
    ("sync_api_us", "blocked in synchronisation"),
    ("blocking_copy_us", "blocking copies"),
]
GPU_PARTS = [
    ("gpu_busy_us", "GPU busy (kernels + copies, union)"),
    ("idle_host_wait_us", "idle: host wait"),
    ("idle_kernel_wait_us", "idle: kernel wait"),
    ("idle_other_us", "idle: other"),
]
HOST_REST = "rest of host time (CPU's own work, other calls)"
GPU_UNCOVERED = "not covered by the GPU split"
NO_GPU_EVENTS = "no GPU events in this trace"


def axis_unit(trace):
    """(us per unit, the unit's name) of a trace's step plot: the unit follows the steps'
    length, so the numbers on the axis stay short and need no offset."""
    return time_unit(max(s["wall_us"] for _, s in stats.step_rows(trace)))


def time_unit(longest):
    """(us per unit, the unit's name) for an axis spanning `longest` us."""
    return (
        (1e6, "s (seconds)")
        if longest >= 1e7
        else (1e3, "ms (milliseconds)")
        if longest >= 1e4
        else (1.0, "us (microseconds)")
    )


def _label_segments(fig, segments):
    """Writes each value inside its bar segment, only where the text fits inside it: a label
    wider than its segment would spill over the neighbours or the axis' tick labels.
    segments: (ax, bars, values) once every bar is drawn (the axes' limits, and so the bars'
    widths on screen, are known only after a draw)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax, bars, values in segments:
        _label_fitting(ax, bars, values, renderer)


def _label_fitting(ax, bars, values, renderer):
    for b, v in zip(bars, values):
        if v <= 0:
            continue
        text = ax.text(
            b.get_x() + b.get_width() / 2,
            b.get_y() + b.get_height() / 2,
            fmt_bar_value(v),
            ha="center",
            va="center",
            fontsize=7,
        )
        if text.get_window_extent(renderer).width > 0.9 * b.get_window_extent(renderer).width:
            text.remove()


def step_plot(trace, stem, path):
    """Two stacked horizontal bars per step: host time and GPU time, values on the bars."""
    from analysis.figures import plt, save_figure  # matplotlib only when a plot is drawn

    rows = stats.step_rows(trace)
    labels = [name for name, _ in rows]
    scale, unit = axis_unit(trace)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 0.45 * len(rows) + 2.4), sharey=True)
    cmap = plt.get_cmap("tab10")

    segments = []

    def stack(ax, parts, title):
        left = np.zeros(len(rows))
        for i, (values, label, style) in enumerate(parts):
            w = np.array(values, float) / scale
            bars = ax.barh(labels, w, left=left, label=label, **style)
            segments.append((ax, bars, w))
            left += w
        ax.set_xlabel(f"{unit} in the step")
        ax.set_title(title)
        ax.grid(alpha=0.3, axis="x")
        ax.legend(
            fontsize=7,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.12 - 0.6 / (len(rows) + 3)),
            ncol=2,
        )

    host = [
        ([s[k] for _, s in rows], name, {"color": cmap(i)})
        for i, (k, name) in enumerate(HOST_PARTS)
    ]
    host.append(
        (
            [max(stats.host_other_us(s), 0.0) for _, s in rows],
            HOST_REST,
            {"color": "lightgray"},
        )
    )
    stack(ax1, host, "Host: where the step's wall time went")
    if trace["gpu_events"]:
        gpu = [
            ([s[k] for _, s in rows], name, {"color": cmap(i + len(HOST_PARTS))})
            for i, (k, name) in enumerate(GPU_PARTS)
        ]
        if any(stats.gpu_unaccounted_us(s) > 0 for _, s in rows):
            # Hatched and outlined, so that its legend swatch shows as well as its bars.
            gpu.append(
                (
                    [stats.gpu_unaccounted_us(s) for _, s in rows],
                    GPU_UNCOVERED,
                    {"facecolor": "white", "edgecolor": "gray", "hatch": "//"},
                )
            )
        stack(ax2, gpu, "GPU: busy and idle by cause")
    else:
        # No GPU events: an empty panel that says so, rather than a blank split with a number.
        ax2.set_title("GPU: busy and idle by cause")
        ax2.text(0.5, 0.5, NO_GPU_EVENTS, transform=ax2.transAxes, ha="center", va="center")
        ax2.set_xlabel(f"{unit} in the step")
        ax2.set_xlim(ax1.get_xlim())
    ax1.invert_yaxis()
    _label_segments(fig, segments)
    fig.suptitle(f"{stem}: per-step time breakdown (./attribute, rank {trace['rank']})", y=1.04)
    return save_figure(fig, path)


QUEUE_DEPTH_LABEL = "GPU work queued or running (pieces)"


def timeline_window(trace):
    """What the queue timeline spans, in words: its step, or the whole trace."""
    w = trace["queue_timeline"]["window"]
    return "the whole trace" if w == "total" else w


def timeline_unit(trace):
    return time_unit(trace["queue_timeline"]["wall_us"])


def _draw_queue(ax, trace):
    """Each GPU's queue depth as a step line: depth[k] holds from t_us[k] to the next change,
    the last to the window's end."""
    from matplotlib.ticker import MaxNLocator

    tl = trace["queue_timeline"]
    scale, unit = timeline_unit(trace)
    for g in stats.timeline_gpus(trace):
        t = np.append(np.asarray(g["t_us"], float), tl["wall_us"]) / scale
        d = np.append(np.asarray(g["depth"], float), g["depth"][-1])
        (line,) = ax.step(t, d, where="post", lw=0.8, label=f"GPU {g['device']}")
        ax.fill_between(t, d, step="post", alpha=0.25, color=line.get_color())
    if tl["wall_us"] > 0:
        ax.set_xlim(0, tl["wall_us"] / scale)
    ax.set_ylim(bottom=0, top=max(ax.get_ylim()[1], 1))  # an empty queue still shows depth 1
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"{unit} from the start of {timeline_window(trace)}")
    ax.set_ylabel(QUEUE_DEPTH_LABEL)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")


def queue_plot(trace, stem, path):
    """The launch queue's depth over the trace's `queue_timeline` window, one line per GPU."""
    from analysis.figures import plt, save_figure  # matplotlib only when a plot is drawn

    fig, ax = plt.subplots(figsize=(12, 3.6))
    _draw_queue(ax, trace)
    ax.set_title(
        f"{stem}: launch-queue depth over {timeline_window(trace)} (./attribute, rank "
        f"{trace['rank']})"
    )
    return save_figure(fig, path)


def queue_comparison_plot(deep, empty, path):
    """The index's figure: a deep queue (GPU-bound) beside an empty one (launch-bound); deep and
    empty are (stem, trace). Each panel keeps its own axes: the two depths can differ a
    hundredfold."""
    from analysis.figures import plt, save_figure

    fig, axes = plt.subplots(1, 2, figsize=(14, 4))
    for ax, (stem, trace) in zip(axes, (deep, empty)):
        _draw_queue(ax, trace)
        g = stats.busiest_gpu(trace["total"]["queue"])
        ax.set_title(
            f"{stem}: {trace['total']['queue']['regime']}, median depth {g['depth_p50']}",
            fontsize=10,
        )
    fig.suptitle("Launch-queue depth over one step: a deep queue beside an empty one (./attribute)")
    fig.tight_layout()
    return save_figure(fig, path)
