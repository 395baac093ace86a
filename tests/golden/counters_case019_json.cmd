counters --format json --sysfs-root tests/fixtures/case019
