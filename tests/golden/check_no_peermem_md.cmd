check --sysfs-root tests/fixtures/check/no-peermem/sys --procfs-root tests/fixtures/check/no-peermem/proc --format md
