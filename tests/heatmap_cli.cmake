# kollide-collide --heatmap (tests/check_heatmap_output.cmake runs it): gear × gear over 21 sphere-method
# poses. The PLY files parse (here, and through the engine's reader when kollide-collide loads them as
# meshes), every vertex of a pose's closest triangle holds a sample, the others are grey, the colours
# follow the values, and bad heatmap options fail.
if(TARGET kollide-collide AND TARGET kollide-poses)
  add_test(NAME collide_cli_heatmap
    COMMAND ${CMAKE_COMMAND} -DCOLLIDE=$<TARGET_FILE:kollide-collide> -DPOSES=$<TARGET_FILE:kollide-poses>
      -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/check_heatmap_output.cmake)
  set_tests_properties(collide_cli_heatmap PROPERTIES LABELS tools)
  kl_test_timeout(300 collide_cli_heatmap)
endif()
