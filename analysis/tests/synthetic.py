"""Builds bench-shaped JSON with known coefficients for the tests."""

import json

import numpy as np

from experiments import sweeps

SWEEPS = sweeps.load()

CONTEXT = {
    "torch_version": "2.11.0",
    "cuda_runtime": "13.0",
    "cuda_driver": "none",
    "gpu_name": "none",
    "cpu_threads_torch": "2",
    "git_commit": "test",
    "cpu_model": "Test CPU",
    "epochs": "20000",
    "tracing": "off",
}


def item_calls(interval, print100, epochs):
    records = epochs // interval if interval > 0 else 0
    return records * (2 if interval >= 2 else 1) + (epochs // 100 if print100 else 0)


def item_sync_doc(
    per_epoch_s,
    per_item_s,
    epochs=20000,
    noise=0.0,
    seed=0,
    device="cpu",
    reps=3,
    intervals=tuple(SWEEPS["item_sync"]["intervals"]),
    fixed_s=0.0,
    epoch_counts=None,
):
    rng = np.random.default_rng(seed)
    rows = []
    for e in epoch_counts or [epochs]:
        for interval in intervals:
            for print100 in (0, 1):
                calls = item_calls(interval, print100, e)
                for rep in range(reps):
                    t = fixed_s + e * per_epoch_s + calls * per_item_s
                    t *= 1 + noise * rng.standard_normal()
                    rows.append(
                        row(
                            f"ItemSync/{device}/interval:{interval}/print100:{print100}/batch:120",
                            t,
                            epochs=e,
                            item_calls=calls,
                            records=(e // interval if interval else 0),
                            interval=interval,
                            print100=print100,
                            batch=120,
                            rep=rep,
                        )
                    )
    return {"context": dict(CONTEXT), "benchmarks": rows}


def row(name, seconds, rep=0, **counters):
    r = {
        "name": name + "/iterations:1/manual_time",
        "run_name": name,
        "run_type": "iteration",
        "repetitions": 3,
        "repetition_index": rep,
        "threads": 1,
        "iterations": 1,
        "real_time": seconds * 1e3,
        "cpu_time": seconds * 1e3,
        "time_unit": "ms",
    }
    r.update({k: float(v) for k, v in counters.items()})
    r["us_per_epoch"] = seconds * 1e6 / counters["epochs"]
    return r


def write(path, doc):
    path.write_text(json.dumps(doc))
    return path
