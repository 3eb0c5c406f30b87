"""The trace pages (`python -m analysis.trace_report`): figures from `./attribute --json`
(stats), the words the pages add to ./attribute's text (prose), the plots (plots), and the pages
put together from them (pages)."""
