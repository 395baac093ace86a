import show-gids tests/fixtures/show-gids/roce-host-mixed.txt --format table
