topo --sysfs-root tests/fixtures/rdma-nogpu --format table
