import iblinkinfo tests/fixtures/iblinkinfo/cut-last-line.txt --format json
