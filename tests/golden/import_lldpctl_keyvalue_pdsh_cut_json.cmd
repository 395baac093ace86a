import lldpctl tests/fixtures/lldpctl/keyvalue-pdsh-cut.txt --format json
