import nccl-log tests/fixtures/cases/046-nccl-warn-roce-gid-index-link-local-ibv-modify-qp-timeout.input.txt --format table
