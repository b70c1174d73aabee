# Steps of the consumer tests (tests/consumer/CMakeLists.txt), run with cmake -P:
#   -DSTEP=install  -DHOLA_BUILD_DIR=<build> -DPREFIX=<dir>: cmake --install into a fresh prefix.
#   -DSTEP=consumer -DSETTINGS=<file>: configure, build and run one consumer project.
#     CMAKE_PREFIX_PATH (the prefix first) is kept apart from the other arguments: it is a list.
#   -DSTEP=pkgconfig -DPREFIX=<dir> -DPKG_CONFIG=<exe> -DCC=<C compiler> -DWORK=<dir>
#     -DSOURCES=<a;b>: compiles and links C sources with only `pkg-config --cflags --libs hola`
#     from the prefix, then runs the program with LD_LIBRARY_PATH unset.
#   -DSTEP=programs -DPREFIX=<dir>: runs every installed program with --help, LD_LIBRARY_PATH
#     unset: each must start (its libraries found through its run path) and exit 0.
# A failing step stops with its name, command and full output.
function(run what)
  string(REPLACE ";" " " cmd "${ARGN}")
  message(STATUS "${what}: ${cmd}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    # NOTICE prints the output as it is (compiler errors stay readable); FATAL_ERROR rewraps.
    message(NOTICE "${out}")
    message(FATAL_ERROR "${what} FAILED (exit ${rc}), output above; command:\n${cmd}")
  endif()
  message(STATUS "${out}")
endfunction()

if(STEP STREQUAL "install")
  file(REMOVE_RECURSE ${PREFIX})
  run("install Hola" ${CMAKE_COMMAND} --install ${HOLA_BUILD_DIR} --prefix ${PREFIX})
elseif(STEP STREQUAL "consumer")
  include(${SETTINGS})
  file(REMOVE_RECURSE ${CONSUMER_BUILD_DIR})
  run("${CONSUMER_NAME}: configure" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}
      -B ${CONSUMER_BUILD_DIR} "-DCMAKE_PREFIX_PATH=${CONSUMER_PREFIX_PATH}"
      ${CONSUMER_CONFIGURE_ARGS})
  run("${CONSUMER_NAME}: build" ${CMAKE_COMMAND} --build ${CONSUMER_BUILD_DIR})
  run("${CONSUMER_NAME}: run" ${CONSUMER_BUILD_DIR}/${CONSUMER_PROGRAM})
elseif(STEP STREQUAL "pkgconfig")
  file(REMOVE_RECURSE ${WORK})
  file(MAKE_DIRECTORY ${WORK})
  file(GLOB pcdirs ${PREFIX}/lib*/pkgconfig)
  string(REPLACE ";" ":" pcpath "${pcdirs}")
  set(pc ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcpath} ${PKG_CONFIG})
  run("pkg-config: validate hola.pc" ${pc} --validate hola)
  execute_process(COMMAND ${pc} --cflags --libs hola RESULT_VARIABLE rc OUTPUT_VARIABLE flags
                  ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs hola FAILED (exit ${rc}): ${err}")
  endif()
  message(STATUS "pkg-config --cflags --libs hola: ${flags}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("pkg-config: compile and link C" ${CC} ${SOURCES} -o ${WORK}/hola_pkgconfig_c ${flags})
  run("pkg-config: run" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${WORK}/hola_pkgconfig_c)
elseif(STEP STREQUAL "programs")
  file(GLOB programs ${PREFIX}/bin/*)
  if(NOT programs)
    message(FATAL_ERROR "no programs installed in ${PREFIX}/bin")
  endif()
  foreach(p IN LISTS programs)
    run("installed ${p}" ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${p} --help)
  endforeach()
else()
  message(FATAL_ERROR
          "run_consumer.cmake: STEP must be install, consumer, pkgconfig or programs (got '${STEP}')")
endif()
