import sonic-interface-counters tests/fixtures/sonic-interface-counters/pdsh-errors-cut.txt --format table
