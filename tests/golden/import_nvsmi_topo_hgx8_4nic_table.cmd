import nvidia-smi-topo tests/fixtures/nvidia-smi-topo/hgx8-4nic-tabs.txt --format table
