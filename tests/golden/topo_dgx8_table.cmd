topo --sysfs-root tests/fixtures/dgx8 --format table
