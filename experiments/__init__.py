"""The experiments' scripts; a package so the analysis reads the sweeps (experiments.sweeps)."""
