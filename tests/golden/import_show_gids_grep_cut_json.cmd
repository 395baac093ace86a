import show-gids tests/fixtures/show-gids/grep-v2-cut.txt --format json
