counters --sysfs-root tests/fixtures/case019 --device nosuch0 --format table
