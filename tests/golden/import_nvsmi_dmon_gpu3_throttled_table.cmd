import nvidia-smi-dmon tests/fixtures/gpu/dmon-dt-8gpu-h100-gpu3-throttled-constructed.txt --format table
