# Script for the install_consumer test (cmake -P): installs Kollide into WORK_DIR/prefix, then builds
# and runs every program of examples/ against it three ways, as users would: find_package with the
# shared library, find_package with the static one, and plain `cc ... $(pkg-config --cflags --libs kollide)`.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
file(GLOB lib_dirs LIST_DIRECTORIES true ${prefix}/lib ${prefix}/lib64 ${prefix}/lib/*-linux-gnu)
list(JOIN lib_dirs ":" lib_path)
set(ENV{LD_LIBRARY_PATH} "${lib_path}")
file(GLOB examples ${SOURCE_DIR}/*.c)

# 1. CMake package, shared and static.
foreach(static OFF ON)
  set(build ${WORK_DIR}/cmake-static-${static})
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${build} -G Ninja -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release -DKOLLIDE_EXAMPLES_STATIC=${static}
      "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
  run(${CMAKE_COMMAND} --build ${build})
  foreach(example ${examples})
    get_filename_component(name ${example} NAME_WE)
    run(${build}/${name})
    message(STATUS "find_package (static ${static}) ${name}: ${last_output}")
  endforeach()
endforeach()

# 2. pkg-config, as a Makefile user would: the shared library, no other flags.
file(GLOB pc_dirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
list(JOIN pc_dirs ":" pc_path)
set(ENV{PKG_CONFIG_PATH} "${pc_path}")
run(pkg-config --cflags --libs kollide)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
separate_arguments(extra UNIX_COMMAND "${C_FLAGS} ${LINK_FLAGS}")
foreach(example ${examples})
  get_filename_component(name ${example} NAME_WE)
  run(${C_COMPILER} -std=c17 ${extra} ${example} -o ${WORK_DIR}/${name}-pc ${flags})
  run(${WORK_DIR}/${name}-pc)
  message(STATUS "pkg-config ${name}: ${last_output}")
endforeach()
