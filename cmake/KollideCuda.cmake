# Optional CUDA backend. KOLLIDE_CUDA: AUTO builds it where nvcc is found, ON requires it, OFF skips it.
# Architectures are pinned before check_language: sm_90 machine code plus compute_90 PTX (JIT on newer
# GPUs); "native" would fail on machines without a GPU.
set(KOLLIDE_HAVE_CUDA OFF)
if(NOT KOLLIDE_CUDA STREQUAL "OFF")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)
    # The CPU build uses -ffp-contract=off; without --fmad=false nvcc would fuse a*b+c in the shared
    # KL_HD kernels and the GPU results would stop matching the CPU bit for bit.
    string(APPEND CMAKE_CUDA_FLAGS " --fmad=false")
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(KOLLIDE_HAVE_CUDA ON)
  elseif(KOLLIDE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "KOLLIDE_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "Kollide CUDA backend: ${KOLLIDE_HAVE_CUDA}")
