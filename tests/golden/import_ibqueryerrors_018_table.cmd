import ibqueryerrors tests/fixtures/cases/018-ibqueryerrors-symbol-errors-flaps-discards.input.txt --format table
