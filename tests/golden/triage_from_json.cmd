triage --from tests/fixtures/triage-from --format json
