topo --sysfs-root tests/fixtures/dgx8 --nvml-lib @FAKE_NVML@ --against tests/fixtures/topo-baselines/dgx8-nvswitch.json --format table
