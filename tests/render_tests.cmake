# Headless OpenGL check of the render module (SDL offscreen driver over Mesa's EGL; no display).
if(TARGET kollide_render)
  add_executable(test_render_context ${CMAKE_CURRENT_SOURCE_DIR}/render/test_render_context.c)
  target_link_libraries(test_render_context PRIVATE kollide_render kollide_options)
  add_test(NAME test_render_context COMMAND test_render_context)
  # Mesa/SDL modules unloaded at exit leave LeakSanitizer reports that cannot be suppressed by name.
  set_tests_properties(test_render_context PROPERTIES LABELS render TIMEOUT 120
    ENVIRONMENT "SDL_VIDEODRIVER=offscreen;ASAN_OPTIONS=detect_leaks=0")
endif()
