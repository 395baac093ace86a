import ibnetdiscover tests/fixtures/ibnetdiscover/ports-two-leaves.txt --format table
