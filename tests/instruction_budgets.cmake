# Instruction-count budgets of short fixed runs (a base-20 pyramid, a joint grid, a convex pile, the
# screw in its block) under callgrind: a slowdown fails here without any test timing anything.
# Budgets are per compiler and build type; sanitizer builds have none (instrumented code counts
# differently), so there these report Skipped.
if(TARGET kollide-bench)
  string(REGEX MATCH "^[0-9]+" kl_compiler_major "${CMAKE_C_COMPILER_VERSION}")
  set(kl_budget_config "${CMAKE_C_COMPILER_ID}-${kl_compiler_major}-${CMAKE_BUILD_TYPE}")
  if(CMAKE_C_FLAGS MATCHES "sanitize")
    set(kl_budget_config "${kl_budget_config}-sanitized")
  endif()
  foreach(run "pyramid 60" "joint_grid 6" "convex_pile 30" "screw_block 8")
    separate_arguments(run)
    list(GET run 0 scene)
    list(GET run 1 steps)
    add_test(NAME budget_${scene}
      COMMAND ${CMAKE_SOURCE_DIR}/tools/check_instruction_budget.sh $<TARGET_FILE:kollide-bench>
        ${kl_budget_config} ${scene} ${steps})
    set_tests_properties(budget_${scene} PROPERTIES LABELS budget TIMEOUT 600 SKIP_RETURN_CODE 77)
  endforeach()
endif()
