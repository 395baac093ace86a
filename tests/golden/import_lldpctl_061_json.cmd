import lldpctl tests/fixtures/cases/061-lldpctl-json-host-25g-lag-and-400g-uplinks-mfs-control.input.txt --format json
