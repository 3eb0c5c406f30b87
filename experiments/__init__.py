"""The experiments' scripts, run from the repository root as python -m experiments.NAME; the
analysis reads the sweeps from here (experiments.sweeps)."""
