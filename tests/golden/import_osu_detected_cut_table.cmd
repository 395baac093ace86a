import tests/fixtures/osu/reduce-cuda-full-v7.3-cut.txt --format table
