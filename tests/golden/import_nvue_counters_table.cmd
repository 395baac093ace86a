import nvue-interface tests/fixtures/nvue-interface/swp1-counters.txt --format table
