# kollide-poses and kollide-collide (tests/check_collide_output.cmake runs them): poses of the sphere
# method collide at rel 0 and not at rel 0.2/0.4; BVH answers equal the exhaustive all-triangle-pairs
# reference (--method brute) and the point-shell backend's (--method pointshell); distances equal
# rel·rA; --threads 2 equals --threads 1; --stats prints one line per rel group; malformed pose files,
# bad options and missing meshes fail with messages.
if(TARGET kollide-collide AND TARGET kollide-poses)
  set(KL_COLLIDE_CHECK
    -DCOLLIDE=$<TARGET_FILE:kollide-collide>
    -DPOSES=$<TARGET_FILE:kollide-poses>
    -DMESH_A=${CMAKE_SOURCE_DIR}/assets/meshes/gear.obj
    -DMESH_B=gen:rock:6
    -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR})
  foreach(mode collide contacts distance stats errors)
    add_test(NAME collide_cli_${mode}
      COMMAND ${CMAKE_COMMAND} ${KL_COLLIDE_CHECK} -DMODE=${mode}
        -P ${CMAKE_CURRENT_SOURCE_DIR}/check_collide_output.cmake)
    set_tests_properties(collide_cli_${mode} PROPERTIES LABELS tools)
    kl_test_timeout(300 collide_cli_${mode})
  endforeach()
endif()
# kollide-collide --method ist (tests/check_collide_ist_output.cmake): volume, collide and contacts of
# a rock's inner-sphere trees; bad combinations of options.
if(TARGET kollide-collide)
  add_test(NAME collide_cli_ist
    COMMAND ${CMAKE_COMMAND} -DCOLLIDE=$<TARGET_FILE:kollide-collide> -DMESH=gen:rock:6
      -DOUT_DIR=${CMAKE_CURRENT_BINARY_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/check_collide_ist_output.cmake)
  set_tests_properties(collide_cli_ist PROPERTIES LABELS tools)
  kl_test_timeout(300 collide_cli_ist)
endif()
