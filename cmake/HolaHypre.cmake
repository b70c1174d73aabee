# HYPRE adapter (libholahypre): AUTO builds it when HYPRE (with its internal headers) and MPI are
# found; ON stops with the reason when they are not. Sets HOLA_HAVE_HYPRE and, when ON, the
# imported target hola_hypre_library (HYPRE's headers and library).
#
# HYPRE is looked for as a CMake package (HYPRE::HYPRE, HYPRE's CMake build), with pkg-config, then
# by header and library name (Debian's libhypre-dev ships neither); HYPRE_ROOT or
# HOLA_HYPRE_INCLUDE_DIR / HOLA_HYPRE_LIBRARY point at other installs.
set(HOLA_WITH_HYPRE AUTO CACHE STRING "Build the HYPRE adapter (AUTO, ON, OFF)")
set_property(CACHE HOLA_WITH_HYPRE PROPERTY STRINGS AUTO ON OFF)
set(HOLA_HAVE_HYPRE OFF)

if(NOT HOLA_WITH_HYPRE STREQUAL "OFF")
  set(_hola_hypre_missing "")
  set(_hola_hypre_includes "")
  set(_hola_hypre_link "")

  find_package(HYPRE CONFIG QUIET)
  if(TARGET HYPRE::HYPRE)
    get_target_property(_hola_hypre_includes HYPRE::HYPRE INTERFACE_INCLUDE_DIRECTORIES)
    set(_hola_hypre_link HYPRE::HYPRE)
  else()
    find_package(PkgConfig QUIET)
    if(PkgConfig_FOUND)
      pkg_check_modules(HOLA_HYPRE_PC QUIET HYPRE)
      if(NOT HOLA_HYPRE_PC_FOUND)
        pkg_check_modules(HOLA_HYPRE_PC QUIET hypre)
      endif()
    endif()
    if(HOLA_HYPRE_PC_FOUND)
      set(_hola_hypre_includes ${HOLA_HYPRE_PC_INCLUDE_DIRS})
      find_library(HOLA_HYPRE_LIBRARY NAMES HYPRE HINTS ${HOLA_HYPRE_PC_LIBRARY_DIRS})
    endif()
  endif()
  if(NOT _hola_hypre_link)
    find_library(HOLA_HYPRE_LIBRARY NAMES HYPRE HINTS ${HYPRE_ROOT} ENV HYPRE_ROOT
                 PATH_SUFFIXES lib lib64)
    if(HOLA_HYPRE_LIBRARY)
      set(_hola_hypre_link ${HOLA_HYPRE_LIBRARY})
    else()
      list(APPEND _hola_hypre_missing "the HYPRE library (libHYPRE)")
    endif()
  endif()
  # The adapter needs HYPRE's internal headers (the Krylov solver structs: krylov.h up to 2.x,
  # _hypre_krylov.h from 3.0; _hypre_parcsr_ls.h).
  find_path(HOLA_HYPRE_INCLUDE_DIR NAMES _hypre_parcsr_ls.h
            HINTS ${_hola_hypre_includes} ${HYPRE_ROOT} ENV HYPRE_ROOT
            PATH_SUFFIXES include include/hypre hypre)
  if(NOT HOLA_HYPRE_INCLUDE_DIR
     OR NOT (EXISTS "${HOLA_HYPRE_INCLUDE_DIR}/krylov.h"
             OR EXISTS "${HOLA_HYPRE_INCLUDE_DIR}/_hypre_krylov.h")
     OR NOT EXISTS "${HOLA_HYPRE_INCLUDE_DIR}/HYPRE_config.h")
    list(APPEND _hola_hypre_missing "HYPRE's headers with the internal ones (_hypre_parcsr_ls.h)")
  endif()

  if(NOT _hola_hypre_missing)
    find_package(MPI COMPONENTS C CXX)
    if(NOT MPI_FOUND)
      list(APPEND _hola_hypre_missing "MPI (C and C++)")
    endif()
  endif()

  if(NOT _hola_hypre_missing)
    set(HOLA_HAVE_HYPRE ON)
    add_library(hola_hypre_library INTERFACE IMPORTED)
    set_target_properties(hola_hypre_library PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${HOLA_HYPRE_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${_hola_hypre_link};MPI::MPI_C")
    # Report the configuration the adapter is built for (HYPRE_config.h).
    file(STRINGS "${HOLA_HYPRE_INCLUDE_DIR}/HYPRE_config.h" _hola_hypre_defines
         REGEX "^#define (HYPRE_RELEASE_VERSION|HYPRE_BIGINT|HYPRE_MIXEDINT|HYPRE_COMPLEX|HYPRE_SINGLE|HYPRE_LONG_DOUBLE|HYPRE_USING_CUDA|HYPRE_USING_GPU) ")
    set(_hola_hypre_config "")
    foreach(line IN LISTS _hola_hypre_defines)
      string(REGEX REPLACE "^#define ([A-Z_]+) (.*)$" "\\1=\\2" _item "${line}")
      list(APPEND _hola_hypre_config "${_item}")
    endforeach()
    message(STATUS "HYPRE adapter: ${HOLA_HYPRE_INCLUDE_DIR}, ${_hola_hypre_link} "
                   "(${_hola_hypre_config})")
    if(_hola_hypre_config MATCHES "HYPRE_COMPLEX|HYPRE_LONG_DOUBLE")
      message(WARNING "HYPRE uses complex or long double values: libholahypre builds, but "
                      "HolaHypreEnable reports the build as unsupported")
    endif()
    if(_hola_hypre_config MATCHES "HYPRE_USING_CUDA" AND NOT HOLA_ENABLE_CUDA)
      message(WARNING "HYPRE uses CUDA but Hola is built without it: device matrices will use "
                      "HYPRE's own matvec")
    endif()
  elseif(HOLA_WITH_HYPRE STREQUAL "ON")
    list(JOIN _hola_hypre_missing ", " _hola_hypre_missing_text)
    message(FATAL_ERROR "HOLA_WITH_HYPRE=ON but ${_hola_hypre_missing_text} not found; install "
                        "libhypre-dev (Debian) or set HYPRE_ROOT, HOLA_HYPRE_INCLUDE_DIR and "
                        "HOLA_HYPRE_LIBRARY")
  endif()
endif()
