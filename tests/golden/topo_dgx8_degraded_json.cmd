topo --sysfs-root tests/fixtures/dgx8-degraded --format json
