import nccl-tests tests/fixtures/nccl-tests/json-v2-allreduce-2node.json --format table
