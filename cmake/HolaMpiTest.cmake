# hola_mpi_test(<name> <ranks> <command> [args...]): a ctest case run through mpiexec with
# <ranks> processes, labels integration;mpi, OMP_NUM_THREADS=1, a 180 s limit and exit code 77
# reported as skipped. Open MPI gets what a small CI container needs: more ranks than cores
# (--oversubscribe), root (--allow-run-as-root), shared-memory transport only, and yielding
# while idle (busy-polling ranks starve each other on 2 cores).
set(HOLA_MPIEXEC_FLAGS ${MPIEXEC_PREFLAGS})
set(HOLA_MPI_TEST_ENV "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _hola_mpi_version
                ERROR_QUIET)
if(_hola_mpi_version MATCHES "Open MPI|OpenRTE")
  list(APPEND HOLA_MPIEXEC_FLAGS --oversubscribe --bind-to none)
  execute_process(COMMAND id -u OUTPUT_VARIABLE _hola_uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_hola_uid STREQUAL "0")
    list(APPEND HOLA_MPIEXEC_FLAGS --allow-run-as-root)
  endif()
  set(HOLA_MPI_TEST_ENV OMPI_MCA_rmaps_base_oversubscribe=1
      OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader
      OMPI_MCA_mpi_yield_when_idle=1)
endif()

function(hola_mpi_test name np)
  add_test(NAME ${name} COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
           ${HOLA_MPIEXEC_FLAGS} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "integration;mpi" TIMEOUT 180
                       ENVIRONMENT "${HOLA_MPI_TEST_ENV};OMP_NUM_THREADS=1" PROCESSORS ${np}
                       SKIP_RETURN_CODE 77)
endfunction()
