import iblinkinfo tests/fixtures/iblinkinfo/healthy-edr-leaf.txt --format table
