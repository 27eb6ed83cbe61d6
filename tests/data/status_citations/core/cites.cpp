// A fixture for tests/check_status_citations.py: the first citation names a row of docs/status.md, the
// second (wrapped over two comment lines) names none.
// (docs/status.md, "Cited row")
// (docs/status.md, "A row that was
// never written")
