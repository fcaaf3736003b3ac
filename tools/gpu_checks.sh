#!/usr/bin/env bash
# The checks that need a CUDA device, in one run (docs/pointshell.md, docs/broadphase.md): the leaf
# bucket a model picks there (test_pointshell), the GPU = CPU comparisons of test_pointshell_gpu, test_pointshell_world (use_gpu) and test_broadphase_gpu, the screw
# resting in its block with point shells on the GPU (test_mesh_scenes), kollide-pointshell-bench's
# E1-E4 (GPU, CPU threads and the SIMD BVH side by side, on the models a world on this machine builds:
# one octree leaf per conglomerate where there is a device), and the bench again with the CPU's leaf
# bucket (256), to compare. Without a device the tests skip (exit 77, shown as skipped here) and the
# bench prints CPU figures only.
#
#   tools/gpu_checks.sh [BIN_DIR (build/release)] [tests|screw|bench|buckets|all (all)] [bench arguments...]
#   tools/gpu_checks.sh BUILD_DIR bundle FOLDER
#
# BIN_DIR is a build directory (its tests/ and bench/ are used) or a flat folder holding the six
# programs (and libcmocka.so.0, for a machine without it). `bundle` makes such a folder from a build
# (the programs, libcmocka and this script), small enough to carry to a lent GPU machine; run there
# `bash FOLDER/gpu_checks.sh FOLDER all --cpu-iterations 3 --threads 8`.
#
# Where $OUT names a folder (the device tool's), the whole output goes to $OUT/gpu_checks.log and only
# each stage's verdicts and figures are printed, so that a short output tail holds all of them. The
# stages' time limits add up to 500 s (4 x 50 + 120 + 120 + 60), under a device call's 600.
set -u -o pipefail
dir=${1:-build/release}
what=${2:-all}
shift $(( $# > 2 ? 2 : $# ))
programs="test_pointshell test_pointshell_gpu test_pointshell_world test_broadphase_gpu test_mesh_scenes kollide-pointshell-bench"
find_program() {
  for p in "$dir/$1" "$dir/tests/$1" "$dir/bench/$1"; do
    [ -x "$p" ] && { echo "$p"; return 0; }
  done
  echo "gpu_checks: $1 not found under $dir" >&2
  return 1
}
if [ "$what" = bundle ]; then
  into=${1:?gpu_checks: bundle needs a folder}
  mkdir -p "$into" || exit 1
  for t in $programs; do
    p=$(find_program "$t") && cp "$p" "$into/" || exit 1
  done
  lib=$(ldconfig -p | awk '/libcmocka\.so\.0 /{print $NF; exit}')
  [ -n "$lib" ] && cp -L "$lib" "$into/" || { echo "gpu_checks: libcmocka.so.0 not found" >&2; exit 1; }
  cp "$0" "$into/gpu_checks.sh" && du -sh "$into"
  exit $?
fi
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  log="$OUT/gpu_checks.log"
else
  log=/dev/null
fi
status=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Runs a stage with a time limit, its whole output to the log as it comes and the lines matching $1
# to stdout when it ends.
stage() {
  local keep=$1 limit=$2 rc
  shift 2
  echo "== $*" | tee -a "$log"
  timeout "$limit" "$@" 2>&1 | tee -a "$log" > "$tmp"
  rc=${PIPESTATUS[0]}
  grep -E "$keep" "$tmp"
  if [ "$rc" -eq 77 ]; then
    echo "   (skipped)"
  elif [ "$rc" -ne 0 ]; then
    echo "   (exit $rc)"
    status=1
  fi
}
command -v nvidia-smi > /dev/null && nvidia-smi -L | tee -a "$log"
test_lines='PASSED|FAILED|SKIPPED|skipped|Failure|error|GPU|gpu|screw'
bench_lines='gpu|GPU|check|only|pointshell-cpu|simd-bvh|model:'
if [ "$what" = all ] || [ "$what" = tests ]; then
  for t in test_pointshell test_pointshell_gpu test_pointshell_world test_broadphase_gpu; do
    p=$(find_program "$t") && stage "$test_lines" 50 "$p" || status=1
  done
fi
if [ "$what" = all ] || [ "$what" = screw ]; then
  p=$(find_program test_mesh_scenes) && stage "$test_lines" 120 "$p" gpu || status=1
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  p=$(find_program kollide-pointshell-bench) && stage "$bench_lines" 120 "$p" "$@" || status=1
fi
if [ "$what" = all ] || [ "$what" = buckets ]; then
  p=$(find_program kollide-pointshell-bench) || status=1
  # The bench again with the CPU's leaf bucket (the default on a device is one leaf per
  # conglomerate; docs/pointshell.md), with one CPU iteration to check the keys.
  [ -n "${p:-}" ] && stage 'gpu|GPU|check|only|model:' 60 "$p" "$@" --leaf-bucket 256 --cpu-iterations 1
fi
exit $status
