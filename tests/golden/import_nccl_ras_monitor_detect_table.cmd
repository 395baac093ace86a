import tests/fixtures/nccl_ras/monitor-peer-dead.txt --format table
