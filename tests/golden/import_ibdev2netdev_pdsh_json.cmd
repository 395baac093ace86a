import ibdev2netdev tests/fixtures/ibdev2netdev/pdsh-three-hosts.txt --format json
