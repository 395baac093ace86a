import tests/fixtures/lldpctl/keyvalue-two-ports.txt --format table
