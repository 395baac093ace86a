check --from tests/fixtures/cases/021-lspci-h100-pex-switch-healthy.input.txt --format table
