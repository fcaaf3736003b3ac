# kollide-sphere-pack: prints a row per sphere count (asked, placed, coverage, wall and CPU seconds);
# refuses a bad count with its usage and a mesh it cannot load with a message.
if(TARGET kollide-sphere-pack)
  add_test(NAME sphere_pack_cli
    COMMAND kollide-sphere-pack ${CMAKE_CURRENT_SOURCE_DIR}/data/cube.off --spheres 10,100 --threads 2)
  set_tests_properties(sphere_pack_cli PROPERTIES LABELS tools
    PASS_REGULAR_EXPRESSION "asked +spheres +coverage +seconds +cpu_s\n +10 +10 +0\\.[0-9]+ +[0-9.]+ +[0-9.]+\n +100 +100 +0\\.[0-9]+ ")
  add_test(NAME sphere_pack_cli_bad_count
    COMMAND kollide-sphere-pack ${CMAKE_CURRENT_SOURCE_DIR}/data/cube.off --spheres 0)
  add_test(NAME sphere_pack_cli_bad_mesh
    COMMAND kollide-sphere-pack ${CMAKE_CURRENT_SOURCE_DIR}/data/nan.obj)
  set_tests_properties(sphere_pack_cli_bad_count PROPERTIES LABELS tools
    PASS_REGULAR_EXPRESSION "usage: kollide-sphere-pack MESH")
  set_tests_properties(sphere_pack_cli_bad_mesh PROPERTIES LABELS tools
    PASS_REGULAR_EXPRESSION "kollide-sphere-pack: cannot load mesh .*not a finite float")
  kl_test_timeout(60 sphere_pack_cli sphere_pack_cli_bad_count sphere_pack_cli_bad_mesh)
endif()
