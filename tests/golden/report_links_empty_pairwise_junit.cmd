report tests/fixtures/report-links/empty-pairwise.json --format junit
