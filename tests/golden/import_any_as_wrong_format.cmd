import --as ibstat tests/fixtures/cases/022-ethtool-prio-roce-no-pfc.input.txt --format table
