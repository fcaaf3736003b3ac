#!/bin/sh
# kollide-ensemble on the milk-box scene: 1 thread, 2 threads and mpirun -n 2, interleaved REPEATS
# times; prints each run's wall_s, the medians, the speed-ups over 1 thread and whether every run's
# summary (probabilities, moments, hash) was the same. Usage: tools/bench_ensemble.sh [BUILD_DIR]
# [SAMPLES] [REPEATS] (defaults build/rel, 1000, 5).
# SPDX-License-Identifier: MIT
set -eu
build=${1:-build/rel} samples=${2:-1000} repeats=${3:-5}
exe=$build/apps/ensemble/kollide-ensemble
scene=$(dirname "$0")/../assets/scenes/milk_box_bin.json
args="$scene --samples $samples --perturb milk:position=0.05,0.05,0.02 --perturb milk:angle=0.3
  --region inside=-0.2,-0.2,0,0.2,0.2,0.4 --steps 180 --no-progress"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$repeats"); do
	"$exe" $args --threads 1 > "$out/t1.$r"
	"$exe" $args --threads 2 > "$out/t2.$r"
	mpirun --allow-run-as-root --oversubscribe --mca btl self,vader -n 2 "$exe" $args > "$out/m2.$r"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { grep -h wall_s "$out/$1".* | sed 's/.*wall_s=//' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t1=$(median t1) t2=$(median t2) m2=$(median m2)
for mode in t1 t2 m2; do echo "$mode: $(grep -h wall_s "$out/$mode".* | sed 's/.*wall_s=//' | tr '\n' ' ')"; done
echo "median wall_s: 1 thread $t1, 2 threads $t2, mpirun -n 2 $m2"
awk -v a="$t1" -v b="$t2" -v c="$m2" 'BEGIN {printf "speed-up: 2 threads %.2fx, mpirun -n 2 %.2fx\n", a / b, a / c}'
distinct=$(for f in "$out"/*; do grep -v wall_s "$f" | md5sum; done | sort -u | wc -l)
echo "distinct summaries: $distinct"
grep -v wall_s "$out/t1.1"
