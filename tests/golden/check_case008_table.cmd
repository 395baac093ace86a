check --from tests/fixtures/cases/008-lspci-acsctl-redirect-enabled.input.txt --format table
