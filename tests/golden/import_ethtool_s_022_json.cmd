import ethtool-s tests/fixtures/cases/022-ethtool-prio-roce-no-pfc.input.txt --format json
