import tests/fixtures/nvue-interface/swp1-phy-detail.txt --format json
