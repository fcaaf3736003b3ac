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
  add_test(NAME viewer_cli
    COMMAND ${CMAKE_COMMAND} -DVIEWER=$<TARGET_FILE:kollide-viewer> -DOUT=${CMAKE_CURRENT_BINARY_DIR}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/viewer/check_viewer_cli.cmake)
  # Mesa/SDL modules unloaded at exit leave LeakSanitizer reports that cannot be suppressed by name.
  set_tests_properties(test_viewer_images viewer_cli PROPERTIES LABELS render TIMEOUT 300
    ENVIRONMENT "SDL_VIDEODRIVER=offscreen;ASAN_OPTIONS=detect_leaks=0")
endif()
