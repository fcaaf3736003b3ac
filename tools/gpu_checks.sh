#!/usr/bin/env bash
# The checks that need a CUDA device, in one run (docs/pointshell.md, docs/broadphase.md): the GPU = CPU
# comparisons of test_pointshell and test_broadphase_gpu, the screw resting in its block with point
# shells on the GPU (test_mesh_scenes), kollide-pointshell-bench's E1-E4 (GPU, CPU threads and the
# SIMD BVH side by side), and the bench once per GPU variant (kl_ps_gpu_variant: the ways of the GPU's
# search to time against each other, with one CPU iteration to check the keys). Without a device the
# tests skip and the bench prints CPU figures only.
#
#   tools/gpu_checks.sh [BIN_DIR (build/release)] [tests|screw|bench|variants|all (all)] [bench arguments...]
#
# BIN_DIR is a build directory (its tests/ and bench/ are used) or a flat folder holding the four
# programs (and libcmocka.so.0, for a machine without it), as copied to a lent GPU machine.
set -u -o pipefail
dir=${1:-build/release}
what=${2:-all}
shift $(( $# > 2 ? 2 : $# ))
find_program() {
  for p in "$dir/$1" "$dir/tests/$1" "$dir/bench/$1"; do
    [ -x "$p" ] && { echo "$p"; return 0; }
  done
  echo "gpu_checks: $1 not found under $dir" >&2
  return 1
}
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
status=0
command -v nvidia-smi > /dev/null && nvidia-smi -L
if [ "$what" = all ] || [ "$what" = tests ]; then
  for t in test_pointshell test_broadphase_gpu; do
    p=$(find_program "$t") || { status=1; continue; }
    echo "== $t"
    timeout 300 "$p" || status=1
  done
fi
if [ "$what" = all ] || [ "$what" = screw ]; then
  p=$(find_program test_mesh_scenes) && { echo "== test_mesh_scenes screw_block_pointshell"; timeout 300 "$p" screw_block_pointshell || status=1; } || status=1
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  p=$(find_program kollide-pointshell-bench) && { echo "== kollide-pointshell-bench $*"; timeout 300 "$p" "$@" || status=1; } || status=1
fi
if [ "$what" = all ] || [ "$what" = variants ]; then
  p=$(find_program kollide-pointshell-bench) || status=1
  for v in 0 1 2 3; do
    [ -n "${p:-}" ] || break
    echo "== kollide-pointshell-bench --gpu-variant $v --cpu-iterations 1"
    timeout 200 "$p" --gpu-variant "$v" --cpu-iterations 1 | grep -E "gpu|check" || status=1
  done
fi
exit $status
