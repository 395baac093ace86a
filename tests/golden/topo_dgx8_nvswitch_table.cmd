topo --sysfs-root tests/fixtures/dgx8 --nvml-lib @FAKE_NVML@ --format table
