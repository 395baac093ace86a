import mpigraph tests/fixtures/mpigraph/6node-node05-slow.out --format table
