import xid tests/fixtures/cases/070-dmesg-xid-119-gsp-rpc-timeout-gpu4-xe9680-needs-reset.input.txt --format json
