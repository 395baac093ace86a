check --sysfs-root tests/fixtures/check/acs-redirect/sys --procfs-root tests/fixtures/check/acs-redirect/proc --format table
