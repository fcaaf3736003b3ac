# Headless OpenGL check of the render module (SDL offscreen driver over Mesa's EGL; no display).
if(TARGET kollide_render)
  add_executable(test_render_context ${CMAKE_CURRENT_SOURCE_DIR}/render/test_render_context.c)
  target_link_libraries(test_render_context PRIVATE kollide_render kollide_options)
  add_test(NAME test_render_context COMMAND test_render_context)
  # Mesa/SDL modules unloaded at exit leave LeakSanitizer reports that cannot be suppressed by name.
  set_tests_properties(test_render_context PROPERTIES LABELS render
    ENVIRONMENT "SDL_VIDEODRIVER=offscreen;ASAN_OPTIONS=detect_leaks=0")
  kl_test_timeout(120 test_render_context)

  # HUD text and panels (render/text.c) drawn headless and checked in the read-back pixels.
  add_executable(test_text ${CMAKE_CURRENT_SOURCE_DIR}/render/test_text.c)
  target_include_directories(test_text PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_text PRIVATE kollide_render kollide_options PkgConfig::CMOCKA m)
  add_test(NAME test_text COMMAND test_text)
  set_tests_properties(test_text PROPERTIES LABELS render
    ENVIRONMENT "SDL_VIDEODRIVER=offscreen;ASAN_OPTIONS=detect_leaks=0")
  kl_test_timeout(120 test_text)

  # Scene renderer (render/renderer.c and friends): drawn headless and checked in the read-back pixels.
  add_executable(test_renderer ${CMAKE_CURRENT_SOURCE_DIR}/render/test_renderer.c)
  target_include_directories(test_renderer PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(test_renderer PRIVATE kollide_render kollide_options PkgConfig::CMOCKA PkgConfig::KL_LIBPNG m)
  target_compile_definitions(test_renderer PRIVATE KL_TEST_OUT_DIR="${CMAKE_CURRENT_BINARY_DIR}")
  add_test(NAME test_renderer COMMAND test_renderer)
  set_tests_properties(test_renderer PROPERTIES LABELS render
    ENVIRONMENT "SDL_VIDEODRIVER=offscreen;ASAN_OPTIONS=detect_leaks=0")
  kl_test_timeout(120 test_renderer)
endif()
