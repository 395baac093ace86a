import tests/fixtures/ibportstate/pdsh-switch-peer-degraded-cut.txt --format json
