counters --format json --sysfs-root tests/fixtures/optics-low-rx/tree
