counters --format prometheus --sysfs-root tests/fixtures/roce-rising/before --after-sysfs-root tests/fixtures/roce-rising/after --interval 10
