topo --sysfs-root tests/fixtures/dgx8 --nvml-lib /nonexistent/libnvidia-ml.so.1 --format table
