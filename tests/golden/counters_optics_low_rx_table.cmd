counters --format table --sysfs-root tests/fixtures/optics-low-rx/tree
