import ibnodes tests/fixtures/ibnodes/ibnodes-default-duplicate-cut.txt --format table
