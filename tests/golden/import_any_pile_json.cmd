import tests/fixtures/import-pile --format json
