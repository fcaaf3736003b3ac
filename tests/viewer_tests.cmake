# kollide-viewer's headless tests (SDL offscreen driver over Mesa's llvmpipe): image checks of the
# app library, and the command line (--list, bad arguments, --screenshot, --record).
if(TARGET kollide_viewer_app)
  pkg_check_modules(KL_VIEWER_PNG REQUIRED IMPORTED_TARGET libpng)
  add_executable(test_viewer_images ${CMAKE_CURRENT_SOURCE_DIR}/viewer/test_viewer_images.c)
  target_include_directories(test_viewer_images PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_viewer_images PRIVATE kollide_viewer_app kollide_options PkgConfig::CMOCKA
                        PkgConfig::KL_VIEWER_PNG m)
  target_compile_definitions(test_viewer_images PRIVATE KL_TEST_OUT_DIR="${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME test_viewer_images COMMAND test_viewer_images)
  # --ply: coloured meshes (kollide-collide --heatmap files) in the app library, and on the command line.
  add_executable(test_viewer_ply ${CMAKE_CURRENT_SOURCE_DIR}/viewer/test_viewer_ply.c)
  target_include_directories(test_viewer_ply PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_viewer_ply PRIVATE kollide_viewer_app kollide_options PkgConfig::CMOCKA m)
  target_compile_definitions(test_viewer_ply PRIVATE KL_TEST_OUT_DIR="${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME test_viewer_ply COMMAND test_viewer_ply)
  set(KL_VIEWER_PLY_TESTS test_viewer_ply)
  if(TARGET kollide-collide AND TARGET kollide-poses)
    add_test(NAME viewer_ply_cli
      COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:kollide-viewer> -DCOLLIDE=$<TARGET_FILE:kollide-collide>
              -DPOSES=$<TARGET_FILE:kollide-poses> -DOUT=${CMAKE_CURRENT_BINARY_DIR}
              -P ${CMAKE_CURRENT_SOURCE_DIR}/viewer/check_viewer_ply.cmake)
    list(APPEND KL_VIEWER_PLY_TESTS viewer_ply_cli)
  endif()
  # --cell: a robot cell's overlays and signal panel (where the cell library is built).
  if(TARGET kollide_cell)
    add_executable(test_viewer_cell ${CMAKE_CURRENT_SOURCE_DIR}/viewer/test_viewer_cell.c)
    target_include_directories(test_viewer_cell PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(test_viewer_cell PRIVATE kollide_viewer_app kollide_options PkgConfig::CMOCKA m)
    target_compile_definitions(test_viewer_cell PRIVATE KL_TEST_OUT_DIR="${CMAKE_CURRENT_BINARY_DIR}"
      KL_CELL_DEMO_DIR="${PROJECT_SOURCE_DIR}/apps/cell/demo")
    add_test(NAME test_viewer_cell COMMAND test_viewer_cell)
    list(APPEND KL_VIEWER_PLY_TESTS test_viewer_cell)
  endif()
  add_test(NAME viewer_cli
    COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:kollide-viewer> -DOUT=${CMAKE_CURRENT_BINARY_DIR}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/viewer/check_viewer_cli.cmake)
  # Mesa/SDL modules unloaded at exit leave LeakSanitizer reports that cannot be suppressed by name.
  set_tests_properties(test_viewer_images viewer_cli ${KL_VIEWER_PLY_TESTS} PROPERTIES LABELS render
    ENVIRONMENT "SDL_VIDEODRIVER=offscreen;ASAN_OPTIONS=detect_leaks=0")
  kl_test_timeout(300 test_viewer_images viewer_cli ${KL_VIEWER_PLY_TESTS})
endif()
