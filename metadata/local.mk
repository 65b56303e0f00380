# rules for metadata (see Makefile.am)
