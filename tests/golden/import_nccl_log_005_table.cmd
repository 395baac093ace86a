import nccl-log tests/fixtures/cases/005-nccl-debug-socket-bootstrap-ib-used.input.txt --format table
