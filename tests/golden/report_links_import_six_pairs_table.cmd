import pairs tests/fixtures/report-links/six-pairs.txt --format table
