import osu tests/fixtures/osu/tagged-bibw-allreduce-alltoall-constructed.txt --line-rate 100 --format table
