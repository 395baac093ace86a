import nccl-ras tests/fixtures/nccl-tests/json-v2-allreduce-2node.pretty.json --format table
