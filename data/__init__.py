"""The Iris data and the script that wrote it (python -m data.make_split)."""
