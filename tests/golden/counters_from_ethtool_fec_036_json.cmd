counters --from tests/fixtures/cases/036-ethtool-show-fec-per-lane-corrected-uncorrectable-blocks.input.txt --format json
