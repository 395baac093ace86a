import tests/fixtures/sonic-interface-counters/fec-stats.txt --format json
