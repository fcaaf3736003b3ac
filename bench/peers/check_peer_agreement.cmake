# Runs kollide-poses, kollide-collide and one peer (cmake -P; registered in bench/peers/CMakeLists.txt)
# and requires the peer's pose lines to equal kollide-collide's. kollide-poses places the rel-0 poses
# past float32 rounding (docs/collide.md): a pose that penetrated by less could be answered differently
# by a float and a double exact test, rightly. The poses of the sphere method must also
# come out as expected (every rel-0 pose collides, no rel-0.2/0.4 pose does), so that two tools that
# agree on wrong answers still fail.
# Inputs: COLLIDE, POSES, PEER, MESH_A, MESH_B, OUT_DIR, NAME; optional COUNT (poses per rel, 17).
if(NOT CMAKE_SCRIPT_MODE_FILE)
  return() # a script, not a project file
endif()
if(NOT DEFINED COUNT)
  set(COUNT 17)
endif()

# Runs a tool; stops with a message when it fails. Sets <prefix>_out (stdout).
function(run_tool prefix)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "'${ARGN}' failed (${rc}): ${err}")
  endif()
  set(${prefix}_out "${out}" PARENT_SCOPE)
endfunction()

# The per-pose lines of a tool's output (a list), after checking the summary line.
function(pose_lines out text tool)
  if(NOT text MATCHES "queries=[0-9]+ median_us=[0-9.]+ mean_us=[0-9.]+\n$")
    message(FATAL_ERROR "${tool}: no summary line at the end of its output:\n${text}")
  endif()
  string(REGEX MATCHALL "pose=[0-9]+ collide=[01]" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

set(file ${OUT_DIR}/peer_${NAME}_poses.txt)
file(REMOVE ${file})
run_tool(p ${POSES} ${MESH_A} ${MESH_B} --rel 0,0.2,0.4 --count ${COUNT} --seed 3 -o ${file})
run_tool(k ${COLLIDE} ${MESH_A} ${MESH_B} --poses ${file} --query collide)
run_tool(q ${PEER} ${MESH_A} ${MESH_B} --poses ${file} --query collide)
pose_lines(k_lines "${k_out}" kollide-collide)
pose_lines(q_lines "${q_out}" ${PEER})

math(EXPR total "3 * ${COUNT}")
list(LENGTH k_lines nk)
list(LENGTH q_lines nq)
if(NOT nk EQUAL total OR NOT nq EQUAL total)
  message(FATAL_ERROR "expected ${total} pose lines, kollide-collide printed ${nk} and the peer ${nq}")
endif()

set(disagree 0)
set(i 0)
foreach(k IN LISTS k_lines)
  list(GET q_lines ${i} q)
  if(NOT k STREQUAL q)
    message(SEND_ERROR "disagreement: kollide-collide '${k}', peer '${q}'")
    math(EXPR disagree "${disagree} + 1")
  endif()
  # Sphere method: the first COUNT poses (rel 0) collide, the rest (rel 0.2, 0.4) do not.
  if(i LESS COUNT)
    set(expected 1)
  else()
    set(expected 0)
  endif()
  if(NOT k MATCHES "collide=${expected}$")
    message(SEND_ERROR "kollide-collide '${k}': expected collide=${expected} for this rel")
  endif()
  math(EXPR i "${i} + 1")
endforeach()
if(disagree GREATER 0)
  message(FATAL_ERROR "${disagree} of ${total} poses disagree between kollide-collide and ${PEER}")
endif()
message(STATUS "${NAME}: all ${total} poses agree")
