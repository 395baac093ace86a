topo --sysfs-root tests/fixtures/cpu-only --format table
