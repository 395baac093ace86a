import nccl-inspector tests/fixtures/cases/050-nccl-inspector-json-v4.3-dump-stats-dropped-records-format.input.txt --format table
