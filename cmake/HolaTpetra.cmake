# Tpetra adapter detection (issue 7). Sets HOLA_HAVE_TPETRA, and for adapters/tpetra, tests/tpetra
# and solvers_demo/tpetra_belos: HOLA_TPETRA_INCLUDE_DIRS, HOLA_TPETRA_LIBRARIES (Tpetra) and
# HOLA_TPETRA_SOLVER_LIBRARIES (Belos + Ifpack2, for the demo and the solver tests).
#
# HOLA_WITH_TPETRA: AUTO builds the adapter when Tpetra, Belos, Ifpack2 and MPI are all found;
# ON requires them; OFF skips the search.
set(HOLA_WITH_TPETRA AUTO CACHE STRING "Build the Tpetra adapter (AUTO, ON, OFF)")
set_property(CACHE HOLA_WITH_TPETRA PROPERTY STRINGS AUTO ON OFF)
set(HOLA_HAVE_TPETRA OFF)
if(NOT HOLA_WITH_TPETRA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "HOLA_WITH_TPETRA must be AUTO, ON or OFF (got '${HOLA_WITH_TPETRA}')")
endif()

if(NOT HOLA_WITH_TPETRA STREQUAL "OFF")
  set(_hola_tpetra_missing "")
  # Trilinos' package configs print nothing useful when absent; the message below says it all.
  find_package(Tpetra CONFIG QUIET)
  if(NOT Tpetra_FOUND)
    list(APPEND _hola_tpetra_missing "Tpetra")
  endif()
  find_package(Belos CONFIG QUIET)
  if(NOT Belos_FOUND)
    list(APPEND _hola_tpetra_missing "Belos")
  endif()
  find_package(Ifpack2 CONFIG QUIET)
  if(NOT Ifpack2_FOUND)
    list(APPEND _hola_tpetra_missing "Ifpack2")
  endif()
  find_package(MPI COMPONENTS CXX QUIET)
  if(NOT MPI_CXX_FOUND)
    list(APPEND _hola_tpetra_missing "MPI (C++)")
  endif()
  # The adapter and its tests use the Trilinos_version.h header (to pick renamed Tpetra methods).
  if(Tpetra_FOUND)
    find_path(_hola_trilinos_version_h Trilinos_version.h
              HINTS ${Tpetra_INCLUDE_DIRS} NO_CACHE)
    if(NOT _hola_trilinos_version_h)
      list(APPEND _hola_tpetra_missing "Trilinos_version.h (Tpetra headers)")
    endif()
  endif()

  if(_hola_tpetra_missing STREQUAL "")
    set(HOLA_HAVE_TPETRA ON)
    # Trilinos 14 and later export Package::all_libs targets; 13.x lists plain imported targets
    # (no include directories on them) in <Package>_LIBRARIES.
    if(TARGET Tpetra::all_libs)
      set(HOLA_TPETRA_LIBRARIES Tpetra::all_libs)
    else()
      set(HOLA_TPETRA_LIBRARIES ${Tpetra_LIBRARIES})
    endif()
    if(TARGET Belos::all_libs AND TARGET Ifpack2::all_libs)
      set(HOLA_TPETRA_SOLVER_LIBRARIES Belos::all_libs Ifpack2::all_libs)
    else()
      set(HOLA_TPETRA_SOLVER_LIBRARIES ${Ifpack2_LIBRARIES} ${Belos_LIBRARIES})
    endif()
    # Trilinos' own headers only: its TPL directory is /usr/include on Debian, which must not
    # become a -isystem path (it breaks #include_next in the C++ library headers).
    set(HOLA_TPETRA_INCLUDE_DIRS "")
    foreach(_dir IN LISTS Tpetra_INCLUDE_DIRS)
      get_filename_component(_dir "${_dir}" REALPATH)
      list(APPEND HOLA_TPETRA_INCLUDE_DIRS "${_dir}")
    endforeach()
    list(REMOVE_DUPLICATES HOLA_TPETRA_INCLUDE_DIRS)
    file(STRINGS "${_hola_trilinos_version_h}/Trilinos_version.h" _hola_trilinos_version
         REGEX "define TRILINOS_VERSION_STRING")
    string(REGEX REPLACE ".*\"(.*)\".*" "\\1" _hola_trilinos_version "${_hola_trilinos_version}")
    # Kokkos with CUDA: Tpetra's default node is the CUDA node, so the adapter's tests run on the
    # GPU (ctest label gpu as well) and need Hola's GPU kernels.
    set(HOLA_TPETRA_ON_CUDA OFF)
    find_file(_hola_kokkos_config KokkosCore_config.h HINTS ${Tpetra_INCLUDE_DIRS} NO_CACHE)
    set(_hola_kokkos_cuda "")
    if(_hola_kokkos_config)
      file(STRINGS "${_hola_kokkos_config}" _hola_kokkos_cuda REGEX "^#define KOKKOS_ENABLE_CUDA$")
    endif()
    if(_hola_kokkos_cuda)
      set(HOLA_TPETRA_ON_CUDA ON)
      if(NOT HOLA_ENABLE_CUDA)
        message(FATAL_ERROR "Tpetra's Kokkos has CUDA (its default node is the CUDA node) but "
                            "HOLA_ENABLE_CUDA is OFF: HolaOperator needs Hola's GPU kernels there")
      endif()
    endif()
    message(STATUS "Hola: Tpetra from Trilinos ${_hola_trilinos_version} (${Tpetra_DIR}), "
                   "CUDA node ${HOLA_TPETRA_ON_CUDA}")
  elseif(HOLA_WITH_TPETRA STREQUAL "ON")
    list(JOIN _hola_tpetra_missing ", " _hola_tpetra_missing_text)
    message(FATAL_ERROR "HOLA_WITH_TPETRA=ON but these were not found: ${_hola_tpetra_missing_text}. "
                        "Install trilinos-all-dev and libptscotch-dev (Debian; scripts/setup.sh does "
                        "it), or point CMAKE_PREFIX_PATH at a Trilinos installation with Tpetra, "
                        "Belos and Ifpack2 built with MPI")
  else()
    list(JOIN _hola_tpetra_missing ", " _hola_tpetra_missing_text)
    message(STATUS "Hola: Tpetra adapter off (not found: ${_hola_tpetra_missing_text})")
  endif()
  unset(_hola_tpetra_missing)
endif()
