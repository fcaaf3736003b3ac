# Installs headers, the libraries, a CMake package (find_package(kollide) -> kollide::kollide, the
# shared library, and kollide::kollide_static), kollide.pc and the LICENSE file.
include(CMakePackageConfigHelpers)

set(KL_INSTALL_TARGETS kollide kollide_api)
if(TARGET kollide_shared)
  list(APPEND KL_INSTALL_TARGETS kollide_shared)
endif()
if(TARGET kollide_cuda)
  list(APPEND KL_INSTALL_TARGETS kollide_cuda)
endif()
install(TARGETS ${KL_INSTALL_TARGETS} EXPORT kollideTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/kollide DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The MIT License asks that its notice go with every copy, installed ones included.
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(KL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kollide)
install(EXPORT kollideTargets NAMESPACE kollide:: DESTINATION ${KL_CMAKE_DIR})
configure_package_config_file(cmake/kollideConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/kollideConfig.cmake
  INSTALL_DESTINATION ${KL_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kollideConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kollideConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/kollideConfigVersion.cmake
  DESTINATION ${KL_CMAKE_DIR})

set(KL_PC_LIBS_PRIVATE "-pthread")
if(KOLLIDE_HAVE_CUDA)
  set(KL_PC_LIBS_PRIVATE "-lkollide_cuda -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lstdc++ ${KL_PC_LIBS_PRIVATE}")
endif()
# Libs.private is what a static link (pkg-config --static) adds; the shared library needs none of it.
# Relocatable: the prefix is found from the .pc file's own directory.
file(RELATIVE_PATH KL_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
configure_file(cmake/kollide.pc.in ${CMAKE_CURRENT_BINARY_DIR}/kollide.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kollide.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
