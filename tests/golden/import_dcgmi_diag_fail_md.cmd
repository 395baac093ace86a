import dcgmi tests/fixtures/gpu/dcgmi-diag-r3-gpu0-fails-wrapped.txt --format md
