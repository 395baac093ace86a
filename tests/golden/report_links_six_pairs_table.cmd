report tests/fixtures/report-links/six-pairs.json --format table
