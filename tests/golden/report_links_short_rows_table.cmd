report tests/fixtures/report-links/short-rows.json --format table
