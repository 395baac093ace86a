topo --sysfs-root tests/fixtures/case011-a100 --nvml-lib @FAKE_NVML@ --format json
