# rules for tests/cluster (see Makefile.am)
