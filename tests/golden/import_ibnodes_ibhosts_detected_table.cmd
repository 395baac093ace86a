import tests/fixtures/ibnodes/ibhosts-compute.txt --format table
