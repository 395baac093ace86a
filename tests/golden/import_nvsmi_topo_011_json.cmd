import nvidia-smi-topo tests/fixtures/cases/011-topo-a100-2gpus-per-nic-sys-only-nics.input.txt --format json
