counters --format table --sysfs-root tests/fixtures/case019
