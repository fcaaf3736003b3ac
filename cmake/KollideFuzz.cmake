# libFuzzer targets (tests/fuzz/, docs/fuzzing.md). They need clang's -fsanitize=fuzzer, so
# KOLLIDE_FUZZ defaults to ON only where the C compiler is clang and links a fuzz target.
set(KL_FUZZ_DEFAULT OFF)
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=fuzzer)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=fuzzer)
  check_c_source_compiles("
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return size > 0 && data[0] == 'k'; }"
    KOLLIDE_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  set(KL_FUZZ_DEFAULT ${KOLLIDE_HAVE_LIBFUZZER})
endif()
option(KOLLIDE_FUZZ "Build the libFuzzer targets and their short ctest runs (clang; needs KOLLIDE_TESTS)"
  ${KL_FUZZ_DEFAULT})
set(KOLLIDE_FUZZ_SECONDS 60 CACHE STRING "Seconds each fuzz target's ctest test fuzzes (-max_total_time)")
if(KOLLIDE_FUZZ AND NOT KOLLIDE_HAVE_LIBFUZZER)
  message(FATAL_ERROR "KOLLIDE_FUZZ needs a C compiler with -fsanitize=fuzzer (clang and libFuzzer: "
    "Debian's clang, libclang-rt-14-dev and libfuzzer-14-dev); ${CMAKE_C_COMPILER_ID} has none")
endif()
