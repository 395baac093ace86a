import nccl-log tests/fixtures/cases/003-nccl-debug-socket-on-lo-ib-disabled.input.txt --format table
