# The CUDA glue: launch code and device memory only; the per-item work is in KL_HD headers shared with
# the CPU path, so it sees the headers of the layers whose kernels it launches.
if(KOLLIDE_HAVE_CUDA)
  file(GLOB KL_CUDA_SOURCES CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/core/*.cu ${PROJECT_SOURCE_DIR}/broadphase/*.cu ${PROJECT_SOURCE_DIR}/narrowphase/*/*.cu)
  add_library(kollide_cuda STATIC ${KL_CUDA_SOURCES})
  target_include_directories(kollide_cuda PRIVATE
    $<TARGET_PROPERTY:kollide_core,INTERFACE_INCLUDE_DIRECTORIES>
    $<TARGET_PROPERTY:kollide_broadphase,INTERFACE_INCLUDE_DIRECTORIES>
    $<TARGET_PROPERTY:kollide_narrowphase,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(kollide_cuda PRIVATE PkgConfig::CGLM)
  target_link_libraries(kollide_cuda PUBLIC CUDA::cudart_static)
  set_target_properties(kollide_cuda PROPERTIES CUDA_RUNTIME_LIBRARY Static)
endif()
