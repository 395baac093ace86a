import rdma-link tests/fixtures/rdma-link/ib-json.json --format json
