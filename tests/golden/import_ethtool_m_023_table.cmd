import ethtool-m tests/fixtures/cases/023-ethtool-m-dom-within-thresholds.input.txt --netdev swp1 --format table
