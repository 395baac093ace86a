counters --from tests/fixtures/counters-faults/pause-storm.ethtool-s.txt --interval 10 --format table
