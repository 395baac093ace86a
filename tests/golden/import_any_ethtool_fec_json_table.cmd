import tests/fixtures/ethtool-fec/json-two-runs-cut.json --format table
