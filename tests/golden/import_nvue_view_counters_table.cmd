import nvue-interface tests/fixtures/nvue-interface/view-counters.txt --format table
