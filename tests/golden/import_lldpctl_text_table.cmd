import lldpctl tests/fixtures/lldpctl/text-mgmt-and-spine.txt --format table
