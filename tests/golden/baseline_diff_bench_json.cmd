baseline diff nightly-bench tests/fixtures/baseline/current-bench.json --store tests/fixtures/baseline/store --format json
