"""The trace pages (`python -m analysis.trace_report`): the figures computed from
`./attribute --json` (stats), the tables (tables), the words (prose), the plots (plots), and the
pages put together from them (pages)."""
