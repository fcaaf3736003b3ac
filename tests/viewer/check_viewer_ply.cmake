# Script for the viewer_ply_cli test (cmake -P): kollide-collide --heatmap writes gear heatmaps, and
# kollide-viewer --ply shows both headless and writes a PNG; bad --ply uses fail with messages.
# -DVIEWER=<exe> -DCOLLIDE=<exe> -DPOSES=<exe> -DOUT=<dir>.
function(run expect_rc pattern)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${expect_rc}" OR NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "${ARGN}: exit '${rc}' (expected ${expect_rc}), output should match '${pattern}':\n${out}${err}")
  endif()
endfunction()

set(prefix ${OUT}/viewer_ply_gear)
file(REMOVE ${prefix}_a.ply ${prefix}_b.ply ${OUT}/viewer_ply.png)
run(0 "" ${POSES} gen:gear gen:gear --rel 0 --count 20 --seed 5 -o ${OUT}/viewer_ply_poses.txt)
run(0 "# heatmap value=time stat=median" ${COLLIDE} gen:gear gen:gear --poses ${OUT}/viewer_ply_poses.txt
    --heatmap ${prefix})
run(0 "" ${VIEWER} --ply ${prefix}_a.ply --ply ${prefix}_b.ply --frames 2 --width 200 --height 150
    --screenshot ${OUT}/viewer_ply.png)
file(READ ${OUT}/viewer_ply.png signature LIMIT 8 HEX)
if(NOT signature STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "--ply --screenshot did not write a PNG (signature ${signature})")
endif()
run(1 "cannot load '${OUT}/no_such.ply'" ${VIEWER} --ply ${OUT}/no_such.ply --frames 1)
run(2 "exclude each other" ${VIEWER} --ply ${prefix}_a.ply --scene pyramid)
run(2 "--ply needs a value" ${VIEWER} --ply)
run(2 "at most 4 --ply files" ${VIEWER} --ply a --ply b --ply c --ply d --ply e)
