# Steps of the consumer tests (tests/consumer/CMakeLists.txt), run with cmake -P:
#   -DSTEP=install  -DHOLA_BUILD_DIR=<build> -DPREFIX=<dir>: cmake --install into a fresh prefix.
#   -DSTEP=consumer -DSETTINGS=<file>: configure, build and run one consumer project.
#     CMAKE_PREFIX_PATH (the prefix first) is kept apart from the other arguments: it is a list.
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
else()
  message(FATAL_ERROR "run_consumer.cmake: STEP must be install or consumer (got '${STEP}')")
endif()
