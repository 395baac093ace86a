check --sysfs-root tests/fixtures/check/healthy/sys --procfs-root tests/fixtures/check/healthy/proc --format table
