# The library's layers. Each top-level folder is one module compiled as an object library whose include
# directories are its own folders plus those of the layers it uses, so a file can only find headers of
# its own layer and of the layers below it; tools/check_layers.py (run by ctest) also fails on a
# wrong-way include written as a relative path. Bottom to top:
#   core -> geometry -> broadphase -> narrowphase -> solver -> engine -> io
# Above the layers, the applications under apps/ link the library and see only include/kollide
# (check_layers.py refuses their includes of a layer's header).
# Every layer sees the public headers (include/kollide); only engine and io may use the umbrella
# <kollide/kollide.h>, which declares the world API.

# What the build found, seen by every layer: AVX2 and AVX-512 kernels (functions marked
# __attribute__((target(...))) that run after a CPU check, so no file gets -mavx2) and the CUDA glue.
set(KL_LAYER_DEFINITIONS)
if(KOLLIDE_AVX2)
  list(APPEND KL_LAYER_DEFINITIONS KOLLIDE_AVX2=1)
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_QUIET ON)
  check_c_source_compiles("
#include <immintrin.h>
__attribute__((target(\"avx2,fma,avx512f\"))) static int f(const float* p)
{ return (int)_mm512_cmp_ps_mask(_mm512_loadu_ps(p), _mm512_setzero_ps(), _CMP_LT_OQ); }
int main(void) { float p[16] = {0}; __builtin_cpu_init(); return __builtin_cpu_supports(\"avx512f\") ? f(p) : 0; }"
    KOLLIDE_HAVE_AVX512)
  if(KOLLIDE_HAVE_AVX512)
    list(APPEND KL_LAYER_DEFINITIONS KOLLIDE_AVX512=1)
  endif()
endif()
if(KOLLIDE_HAVE_CUDA)
  list(APPEND KL_LAYER_DEFINITIONS KOLLIDE_HAVE_CUDA=1 KL_SAP_HAVE_GPU=1)
endif()

# The public headers and what every user of them needs.
add_library(kollide_api INTERFACE)
target_include_directories(kollide_api INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(kollide_api INTERFACE PkgConfig::CGLM m)

# kl_add_layer(NAME [DIRS dir...] [USES layer...] [LIBS lib...]): an object library kollide_NAME
# from the .c files of DIRS (default: the calling folder), seeing the headers of DIRS and of USES.
function(kl_add_layer name)
  cmake_parse_arguments(L "" "" "DIRS;USES;LIBS" ${ARGN})
  if(NOT L_DIRS)
    set(L_DIRS ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(sources)
  foreach(dir ${L_DIRS})
    file(GLOB dir_sources CONFIGURE_DEPENDS ${dir}/*.c)
    list(APPEND sources ${dir_sources})
  endforeach()
  add_library(kollide_${name} OBJECT ${sources})
  set_target_properties(kollide_${name} PROPERTIES C_VISIBILITY_PRESET hidden POSITION_INDEPENDENT_CODE ON)
  foreach(dir ${L_DIRS})
    target_include_directories(kollide_${name} PUBLIC $<BUILD_INTERFACE:${dir}>)
  endforeach()
  target_compile_definitions(kollide_${name} PRIVATE ${KL_LAYER_DEFINITIONS})
  list(TRANSFORM L_USES PREPEND kollide_)
  target_link_libraries(kollide_${name} PUBLIC kollide_api ${L_USES} PRIVATE kollide_options ${L_LIBS})
  set_property(GLOBAL APPEND PROPERTY KOLLIDE_LAYERS kollide_${name})
endfunction()

# A library made of every layer's objects, with the CUDA glue where it is built.
function(kl_add_library target)
  get_property(layers GLOBAL PROPERTY KOLLIDE_LAYERS)
  set(objects)
  foreach(layer ${layers})
    list(APPEND objects $<TARGET_OBJECTS:${layer}>)
  endforeach()
  target_sources(${target} PRIVATE ${objects})
  set_target_properties(${target} PROPERTIES C_VISIBILITY_PRESET hidden)
  target_link_libraries(${target} PUBLIC kollide_api PRIVATE PkgConfig::CJSON PkgConfig::EXPAT Threads::Threads)
  if(TARGET kollide_cuda)
    # nvcc's objects need the C++ runtime; named here so that C programs link the static library.
    target_link_libraries(${target} PRIVATE kollide_cuda stdc++)
  endif()
endfunction()

# Tests and micro-benchmarks that drive internal modules directly: every layer's headers, not linked
# objects (they link kollide).
function(kl_add_internal_interface)
  get_property(layers GLOBAL PROPERTY KOLLIDE_LAYERS)
  add_library(kollide_internal INTERFACE)
  foreach(layer ${layers})
    target_include_directories(kollide_internal INTERFACE $<TARGET_PROPERTY:${layer},INTERFACE_INCLUDE_DIRECTORIES>)
  endforeach()
endfunction()
