# HYPRE adapter detection (issue 7). Sets HOLA_HAVE_HYPRE.
set(HOLA_HAVE_HYPRE OFF)
