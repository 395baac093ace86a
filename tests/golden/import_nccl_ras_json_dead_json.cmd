import nccl-ras tests/fixtures/nccl_ras/json-8rank-dead-lagging-async-error.json --format json
