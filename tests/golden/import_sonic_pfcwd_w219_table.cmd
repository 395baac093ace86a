import sonic-pfcwd-stats tests/fixtures/cases/w219-sonic-pfcwd-stats-watchdog-stopped-status-na.input.txt --format table
