# Tpetra adapter detection (issue 7). Sets HOLA_HAVE_TPETRA.
set(HOLA_HAVE_TPETRA OFF)
