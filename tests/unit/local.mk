# unit tests (cmocka); see Makefile.am
