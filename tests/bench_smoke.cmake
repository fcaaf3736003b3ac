# kollide-bench runs every scene-library benchmark scene for two steps (one timed) on one and two
# threads: the runner works, the scenes build and step, and the two thread counts agree on the hash.
if(TARGET kollide-bench)
  add_test(NAME bench_library_smoke
    COMMAND kollide-bench --scene library --steps 2 --repeats 1 --threads 1,2 --details)
  set_tests_properties(bench_library_smoke PROPERTIES LABELS tools TIMEOUT 300)
endif()
