import sonic-interface-counters tests/fixtures/sonic-interface-counters/std-three-ports.txt --format table
