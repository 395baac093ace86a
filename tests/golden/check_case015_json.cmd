check --from tests/fixtures/cases/015-ibstatus-roce-rate-mismatch.input.txt --format json
