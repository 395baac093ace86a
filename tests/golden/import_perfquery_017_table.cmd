import perfquery tests/fixtures/cases/017-perfquery-clean-xmitwait-only.input.txt --format table
