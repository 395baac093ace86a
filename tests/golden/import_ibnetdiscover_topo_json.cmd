import ibnetdiscover tests/fixtures/ibnetdiscover/two-leaves-one-spine.txt --format json
