import ibdev2netdev tests/fixtures/ibdev2netdev/v-dgx-one-down.txt --format table
