import perftest tests/fixtures/cases/065-ib-write-bw-roce-v1-mlx4-36gbps-duration-mode-peak-zero-control.input.txt --format json
