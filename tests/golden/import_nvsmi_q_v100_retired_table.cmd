import nvidia-smi-q tests/fixtures/gpu/nvsmi-q-v100-i0-retired-pending.txt --format table
