import sonic-pfc-counters tests/fixtures/cases/056-sonic-pfc-counters-ethernet6-rx-pfc3-pfc4-pause-storm.input.txt --format json
