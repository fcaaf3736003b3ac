# Installs Kollide into the build tree, then builds and runs the programs of examples/ against it
# with find_package(kollide) (shared and static) and with pkg-config. They are built with the same
# compiler flags (a sanitizer build installs an instrumented library).
add_test(NAME install_consumer
  COMMAND ${CMAKE_COMMAND}
    -DBUILD_DIR=${CMAKE_BINARY_DIR}
    -DSOURCE_DIR=${CMAKE_SOURCE_DIR}/examples
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install_consumer
    -DC_COMPILER=${CMAKE_C_COMPILER}
    "-DC_FLAGS=${CMAKE_C_FLAGS}"
    "-DLINK_FLAGS=${CMAKE_EXE_LINKER_FLAGS}"
    -P ${CMAKE_CURRENT_SOURCE_DIR}/check_install_consumer.cmake)
set_tests_properties(install_consumer PROPERTIES LABELS install RUN_SERIAL TRUE)
kl_test_timeout(600 install_consumer)
