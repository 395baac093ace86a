accept --spec docs/specs/hgx-h100-8gpu.yaml --from tests/fixtures/accept/healthy --format table
