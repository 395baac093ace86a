import xid tests/fixtures/gpu/dmesg-healthy-no-xid.txt --format table
