accept --spec tests/fixtures/accept/specs/unknown-key.yaml --from tests/fixtures/accept/healthy
