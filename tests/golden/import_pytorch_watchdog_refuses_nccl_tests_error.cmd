import pytorch-watchdog tests/fixtures/cases/043-nccltests-allgather-new-format-version-header-dgx-spark-below-link.input.txt --format table
