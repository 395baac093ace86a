check --sysfs-root tests/fixtures/check/port-down/sys --procfs-root tests/fixtures/check/port-down/proc --format table
