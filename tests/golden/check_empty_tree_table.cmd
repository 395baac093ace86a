check --sysfs-root tests/fixtures/empty-tree --format table
