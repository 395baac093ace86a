import rdma-statistic tests/fixtures/cases/025-rdma-statistic-all-zero.input.txt --all --format table
