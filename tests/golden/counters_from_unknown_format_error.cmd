counters --from tests/fixtures/nccl-tests/newer-allreduce-2node.txt --format table
