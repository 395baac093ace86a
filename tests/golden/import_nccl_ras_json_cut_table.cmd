import nccl-ras tests/fixtures/nccl_ras/json-cut-in-second-comm.json --format table
