import pairs tests/fixtures/cases/028-pairwise-busbw-one-slow-node.input.txt --format table
