"""`./attribute --json`'s documents: the schema (its version shared with the C++ writer, and the
fields every page reads) and the reader that checks a file against it."""
