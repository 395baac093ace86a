topo --sysfs-root tests/fixtures/dgx8-degraded --against tests/fixtures/topo-baselines/dgx8.json --format json
