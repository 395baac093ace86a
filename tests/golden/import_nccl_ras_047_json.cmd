import nccl-ras tests/fixtures/cases/047-nccl-ras-mismatch-allgather-op-counts-640-vs-641.input.txt --format json
