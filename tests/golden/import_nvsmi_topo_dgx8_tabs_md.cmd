import nvidia-smi-topo tests/fixtures/nvidia-smi-topo/dgx8-nvswitch-tabs.txt --format md
