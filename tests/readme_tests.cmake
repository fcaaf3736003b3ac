# The README's install command and tools/debian-packages.txt (which .ci/run installs) name the
# same Debian packages.
add_test(NAME readme_packages
  COMMAND ${CMAKE_COMMAND} -DREADME=${CMAKE_SOURCE_DIR}/README.md
          -DPACKAGES=${CMAKE_SOURCE_DIR}/tools/debian-packages.txt
          -P ${CMAKE_CURRENT_SOURCE_DIR}/check_readme_packages.cmake)
set_tests_properties(readme_packages PROPERTIES LABELS docs)
