counters --format prometheus --sysfs-root tests/fixtures/optics-low-rx/tree
