import dcgmi tests/fixtures/cases/038-dcgmi-nvlink-all-down-while-dcgmi-diag-r2-passes.input.txt --format json
