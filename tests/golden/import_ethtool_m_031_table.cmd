import ethtool-m tests/fixtures/cases/031-ethtool-m-sfp-10g-lr-rx-minus40dbm-loss-of-light.input.txt --format table
