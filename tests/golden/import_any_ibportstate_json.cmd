import tests/fixtures/ibportstate/ca-width-set-1x.txt --format json
