import iblinkinfo tests/fixtures/cases/052-iblinkinfo-qdr-blade-switch-four-hosts-at-ddr-sdr-second-plane.input.txt --format json
