"""The repository's scripts that are Python: run from the repository root as python -m scripts.NAME."""
