import nvidia-smi-nvlink tests/fixtures/cases/037-nvidia-smi-nvlink-s-a100-gpu6-all-links-inactive.input.txt --format table
