check --from tests/fixtures/import/nccl-log-4node-socket-fallback.log --format table
