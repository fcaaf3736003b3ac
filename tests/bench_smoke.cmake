# kollide-bench runs every scene-library benchmark scene for two steps (one timed) on one and two
# threads: the runner works, the scenes build and step, and the two thread counts agree on the hash.
if(TARGET kollide-bench)
  add_test(NAME bench_library_smoke
    COMMAND kollide-bench --scene library --steps 2 --repeats 1 --threads 1,2 --details)
  set_tests_properties(bench_library_smoke PROPERTIES LABELS tools)
  kl_test_timeout(300 bench_library_smoke)
endif()

# kollide-pile-layouts runs one pile layout for 30 steps and prints its line and the summary; its
# usage errors are refused.
if(TARGET kollide-pile-layouts)
  add_test(NAME pile_layouts_smoke COMMAND kollide-pile-layouts 2 2 --steps 30)
  set_tests_properties(pile_layouts_smoke PROPERTIES LABELS tools
    PASS_REGULAR_EXPRESSION "seed=2 settled=[0-9]+/30 .*\nlayouts=1 settled_in_full=")
  kl_test_timeout(300 pile_layouts_smoke)
  add_test(NAME pile_layouts_usage COMMAND kollide-pile-layouts 5 2)
  set_tests_properties(pile_layouts_usage PROPERTIES LABELS tools WILL_FAIL TRUE)
endif()

# kollide-ist-bench runs a small swap and haptic query (every available walk) and prints its summary
# lines; its usage errors are refused.
if(TARGET kollide-ist-bench)
  add_test(NAME ist_bench_smoke COMMAND kollide-ist-bench --spheres 300 --haptic-spheres 400 --steps 5 --reps 3)
  set_tests_properties(ist_bench_smoke PROPERTIES LABELS tools
    PASS_REGULAR_EXPRESSION "heaviest step .*\nhaptic: two 400-sphere tori.*\nbranching 16 .* scalar [0-9.]+ ms")
  kl_test_timeout(300 ist_bench_smoke)
  add_test(NAME ist_bench_usage COMMAND kollide-ist-bench --steps 1)
  set_tests_properties(ist_bench_usage PROPERTIES LABELS tools WILL_FAIL TRUE)
endif()
