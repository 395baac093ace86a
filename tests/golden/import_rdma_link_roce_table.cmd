import rdma-link tests/fixtures/rdma-link/roce-one-disabled.txt --format table
