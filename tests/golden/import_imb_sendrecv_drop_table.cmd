import imb tests/fixtures/imb/sendrecv-exchange-hdr100-drop.txt --format table
