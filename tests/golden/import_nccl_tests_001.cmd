import nccl-tests tests/fixtures/cases/001-nccltests-allreduce-alltoall-8node-ib.input.txt --format table
