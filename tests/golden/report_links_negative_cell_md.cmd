report tests/fixtures/report-links/negative-cell.json --format md
