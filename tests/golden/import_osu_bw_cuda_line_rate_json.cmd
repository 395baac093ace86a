import osu tests/fixtures/osu/bw-cuda-v7.2-a100-nvlink.txt --line-rate 1600 --format json
