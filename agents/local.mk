# rules for agents (see Makefile.am)
