import pytorch-watchdog tests/fixtures/cases/067-pytorch-nccl-watchdog-allreduce-seq808-three-ranks-600s-timeout.input.txt --format table
