counters --from tests/fixtures/counters-faults/low-rx-power.ethtool-m.txt --format md
