import ethtool-fec tests/fixtures/cases/036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks.input.txt --format table
