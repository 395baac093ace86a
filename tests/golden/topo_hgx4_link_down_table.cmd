topo --sysfs-root tests/fixtures/hgx4-a100 --nvml-lib @FAKE_NVML@ --format table
