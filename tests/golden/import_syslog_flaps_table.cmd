import syslog tests/fixtures/counters-faults/carrier-flaps.syslog.txt --format table
