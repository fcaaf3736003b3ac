# kollide-sim: CSV output, the summary line, bit-identical results for 1 and 2 threads, and the
# exit codes for bad arguments and bad scenes (tests/check_sim_output.cmake runs the tool).
if(TARGET kollide-sim)
  set(KL_SIM_CHECK
    -DSIM=$<TARGET_FILE:kollide-sim>
    -DSCENE=${CMAKE_SOURCE_DIR}/assets/scenes/falling_shapes.json
    -DBODIES=14
    -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR})
  foreach(mode csv threads errors)
    add_test(NAME sim_cli_${mode}
      COMMAND ${CMAKE_COMMAND} ${KL_SIM_CHECK} -DMODE=${mode}
        -P ${CMAKE_CURRENT_SOURCE_DIR}/check_sim_output.cmake)
    set_tests_properties(sim_cli_${mode} PROPERTIES LABELS tools)
    kl_test_timeout(120 sim_cli_${mode})
  endforeach()
endif()
