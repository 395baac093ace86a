import ethtool-fec tests/fixtures/ethtool-fec/text-hist-eni8np1.txt --format json
