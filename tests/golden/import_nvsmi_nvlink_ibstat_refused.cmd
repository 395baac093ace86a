import nvidia-smi-nvlink tests/fixtures/cases/013-ibstat-cx7-two-ports-down.input.txt
