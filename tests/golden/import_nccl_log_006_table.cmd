import nccl-log tests/fixtures/cases/006-nccl-debug-roce-gdr-disabled.input.txt --format table
