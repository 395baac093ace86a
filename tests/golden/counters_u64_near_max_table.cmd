counters --from tests/fixtures/counters-faults/u64-near-max.ethtool-s.txt --netdev eth0 --format table
