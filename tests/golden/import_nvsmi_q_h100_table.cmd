import nvidia-smi-q tests/fixtures/gpu/nvsmi-q-hgx-h100-8gpu.txt --format table
