import nccl-tests tests/fixtures/cases/044-nccltests-alltoall-json-output-p2p-disabled-openib-noise.input.txt --format table
