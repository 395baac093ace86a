import ibportstate tests/fixtures/ibportstate/pdsh-switch-peer-degraded-cut.txt --format table
