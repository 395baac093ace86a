import sonic-pfcwd-stats tests/fixtures/cases/w201-sonic-pfcwd-stats-ethernet4-q3-stormed-drops.input.txt --format json
