import nccl-tests tests/fixtures/nccl-tests/json-v2-allreduce-cut.json --format table
