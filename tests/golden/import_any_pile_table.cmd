import tests/fixtures/import-pile --format table
