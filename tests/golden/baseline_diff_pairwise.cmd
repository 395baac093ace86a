baseline diff nightly-pairwise tests/fixtures/baseline/current-pairwise.json --store tests/fixtures/baseline/store --format table
