import tests/fixtures/imb/io-2021.8-banner-cut.txt --format json
